"""The student's lab (`make lab`, lab/README.md): it opens on chapter 00, and nbgrader's Validate
dialog says what it knows (custom/custom.css) and what failed first (workbook.validate, turned on
in jupyter_server_config.d/).

Jupyter reads this file from every folder of JUPYTER_CONFIG_PATH, so the paths are made from its
own place, never from the folder `make lab` was started in.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST_NOTEBOOK = "00_start_here/00_start_here.ipynb"  # relative to chapters/, the lab's root

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.LabApp.default_url = f"/lab/tree/{FIRST_NOTEBOOK}"  # `jupyter lab` uses its own, not ServerApp's
# static_custom_path is not a configurable trait; the web app's settings it becomes are. A lab in
# another language (AGENT_LOOP_LANG, `make lab LANG=ru`) takes that language's custom.css first,
# i18n/<lang>/lab/ (docs/TRANSLATING.md).
CUSTOM = [os.path.join(HERE, "custom")]
LANGUAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "i18n", os.environ.get("AGENT_LOOP_LANG", "-"), "lab")
if os.environ.get("AGENT_LOOP_LANG", "").isalpha() and os.path.isfile(os.path.join(LANGUAGE, "custom.css")):
    CUSTOM.insert(0, LANGUAGE)
c.ServerApp.tornado_settings = {"static_custom_path": CUSTOM}
c.LabApp.custom_css = True
