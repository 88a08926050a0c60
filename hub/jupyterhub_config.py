"""JupyterHub for a small cohort on one machine (docs/HUB.md): `jupyterhub -f hub/jupyterhub_config.py`.

Everything comes from the settings file hub/setup_hub.py wrote (HUB_SETTINGS, default
/srv/agent-loop-hub/hub.json): the accounts, the ports on 127.0.0.1, the exchange, the course.
Each account's server runs as that account (JupyterHub's LocalProcessSpawner), so nbgrader's
exchange knows who submitted by the account's name and its folder permissions keep students apart.
Students get the Assignments tab and Validate; the instructor every nbgrader tool (hub/student/,
hub/instructor/ on JUPYTER_CONFIG_PATH). Every server runs the Python of the students' copy of the
course (hub/student_course.py); a student's environment names nothing else of the course, never
the repository or the instructor's course (setup_hub.account_env).
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from setup_hub import account_env  # noqa: E402

SETTINGS = Path(os.environ.get("HUB_SETTINGS", "/srv/agent-loop-hub/hub.json"))
S = json.loads(SETTINGS.read_text(encoding="utf-8"))
STATE = Path(S["state"])

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.JupyterHub.bind_url = f"http://{S['ip']}:{S['port']}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{S['hub_port']}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{S['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [S["proxy"]]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

c.Authenticator.allowed_users = set(S["students"]) | {S["instructor"]}
# hub/setup_hub.py adds new students to the running hub through its API with this service's token
# (root's, 0600; hub/hub_state.py): users only, no server stops.
TOKEN = STATE / "setup-token"
if S.get("setup_token") and TOKEN.is_file():
    c.JupyterHub.services = [{"name": "agent-loop-setup", "api_token": TOKEN.read_text(encoding="utf-8").strip()}]
    c.JupyterHub.load_roles = [{"name": "agent-loop-setup", "scopes": ["admin:users"],
                                "services": ["agent-loop-setup"]}]
c.Authenticator.admin_users = {S["instructor"]}
if S.get("auth") == "shared-password":  # a rehearsal on throw-away accounts: one password
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = S["password"]
    c.SharedPasswordAuthenticator.admin_password = S["admin_password"]  # the instructor's (hub.json)
# else JupyterHub's default, PAM: each account's own Unix password.

c.Spawner.cmd = [S["python"], "-m", "jupyterhub.singleuser"]
# Nothing of the hub's own environment (a VIRTUAL_ENV or PYTHONPATH naming the repository) reaches
# a server: account_env below is all it gets, with JupyterHub's own variables.
c.Spawner.env_keep = ["LANG", "LC_ALL", "JUPYTERHUB_SINGLEUSER_APP"]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = S.get("start_timeout", 180)  # a first lab start on a busy machine
c.Spawner.http_timeout = S.get("start_timeout", 180)


def pre_spawn_hook(spawner):
    """Students get hub/student/, the instructor hub/instructor/ (setup_hub.account_env)."""
    spawner.environment.update(account_env(S, spawner.user.name))


c.Spawner.pre_spawn_hook = pre_spawn_hook
