"""Vulture's whitelist (`make lint`): names it reports as unused that are used, each group with the
reason. Reviewed by hand: add a name only with its reason; dead code is deleted, not listed here.
Remake the raw list with the command in the Makefile's lint target plus `--make-whitelist`."""
# ruff: noqa

# nbgrader, traitlets and Jupyter read these settings and hooks by name (config files, nbgrader's
# preprocessors and exporters, the Jupyter server extension of workbook/validate.py)
start_new_kernel  # unused variable (autograder/pipeline/execute.py:70)
_.preprocess_cell  # unused method (autograder/pipeline/execute.py:166)
_._update_display_id  # unused method (autograder/pipeline/execute.py:238)
_.release_directory  # unused attribute (autograder/pipeline/gradebook.py:39)
_.exporter_class  # unused attribute (autograder/nbgrader_config.py:17)
_.get_alembic_version  # unused attribute (autograder/nbgrader_run.py:29)
_.nbformat_minor  # unused attribute (autograder/notebooks.py:112)
_.release_directory  # unused attribute (autograder/release/release.py:67)
_.auto_score  # unused attribute (autograder/pipeline/scoring.py:37)
_.needs_manual_grade  # unused attribute (autograder/pipeline/scoring.py:38)
_.release_directory  # unused attribute (autograder/settings.py:55)
_.submitted_directory  # unused attribute (autograder/settings.py:57)
_.autograded_directory  # unused attribute (autograder/settings.py:58)
_.feedback_directory  # unused attribute (autograder/settings.py:59)
_.db_url  # unused attribute (autograder/settings.py:60)
_.add_missing_cells  # unused attribute (autograder/settings.py:64)
_.code_stub  # unused attribute (autograder/settings.py:65)
_.autograde_preprocessors  # unused attribute (autograder/settings.py:66)
_.startup_timeout  # unused attribute (autograder/settings.py:72)
_.max_lines  # unused attribute (autograder/settings.py:80)
_.max_traceback  # unused attribute (autograder/settings.py:81)
_.preprocessors  # unused attribute (autograder/settings.py:82)
_.sanitize_html  # unused attribute (autograder/settings.py:83)
_.exporter_class  # unused attribute (hub/instructor/nbgrader_config.py:24)
_.hub_bind_url  # unused attribute (hub/jupyterhub_config.py:28)
_.api_url  # unused attribute (hub/jupyterhub_config.py:29)
_.pid_file  # unused attribute (hub/jupyterhub_config.py:31)
_.db_url  # unused attribute (hub/jupyterhub_config.py:32)
_.cookie_secret_file  # unused attribute (hub/jupyterhub_config.py:33)
_.pid_file  # unused attribute (hub/jupyterhub_config.py:34)
_.cleanup_servers  # unused attribute (hub/jupyterhub_config.py:35)
_.cleanup_proxy  # unused attribute (hub/jupyterhub_config.py:36)
_.services  # unused attribute (hub/jupyterhub_config.py:43)
_.template_name  # unused attribute (autograder/pipeline/feedback_filter.py: nbconvert's HTMLExporter setting)
_.template_file  # unused attribute (autograder/pipeline/feedback_filter.py: nbconvert's HTMLExporter setting)
_.extra_template_basedirs  # unused attribute (autograder/pipeline/feedback_filter.py: nbconvert's HTMLExporter setting)
_.extra_template_paths  # unused attribute (tests/test_feedback_page.py: nbconvert's HTMLExporter setting)
_.load_roles  # unused attribute (hub/jupyterhub_config.py:44)
_.authenticator_class  # unused attribute (hub/jupyterhub_config.py:48)
_.default_url  # unused attribute (hub/jupyterhub_config.py:57)
_.notebook_dir  # unused attribute (hub/jupyterhub_config.py:58)
_.http_timeout  # unused attribute (hub/jupyterhub_config.py:60)
_.custom_css  # unused attribute (hub/student/jupyter_server_config.py:12)
_.exporter_class  # unused attribute (lab/instructor/nbgrader_config.py:50)
_.default_url  # unused attribute (lab/student/jupyter_server_config.py:14)
_.custom_css  # unused attribute (lab/student/jupyter_server_config.py:17)
_.steps_not_blank  # unused method (solutions/13_react_and_plan_execute/13_react_and_plan_execute.py:753)
_.release_directory  # unused attribute (tests/test_hub_exchange.py:50)
_.assignment_dir  # unused attribute (tests/test_hub_exchange.py:57)
_.validate_notebook  # unused method (workbook/validate.py:55)
_jupyter_server_extension_points  # unused function (workbook/validate.py:71)
_load_jupyter_server_extension  # unused function (workbook/validate.py:75)

# http.server and socketserver call these methods and read these class attributes
protocol_version  # unused variable (workbook/engine/server.py:29)
disable_nagle_algorithm  # unused variable (workbook/engine/server.py:30)
_.log_message  # unused method (workbook/engine/server.py:32)
_.do_POST  # unused method (workbook/engine/server.py:51)
_.close_connection  # unused attribute (workbook/engine/server.py:54)
_.close_connection  # unused attribute (workbook/engine/server.py:86)
daemon_threads  # unused variable (workbook/engine/server.py:106)
_.process_request  # unused method (workbook/engine/server.py:113)
_.handle_error  # unused method (workbook/engine/server.py:136)
_.close_connection  # unused attribute (workbook/engine/streaming.py:266)
_.close_connection  # unused attribute (workbook/engine/streaming.py:272)
_.log_message  # unused method (workbook/scenarios/attacks.py:206)
_.daemon_threads  # unused attribute (workbook/scenarios/attacks.py:211)
_.block_on_close  # unused attribute (workbook/scenarios/attacks.py:212)

# IPython shows an object by its _repr_png_; the MCP SDK server registers its tools by decorator
shout  # unused function (workbook/mcp_servers/sdk_server.py:18)
_._repr_png_  # unused method (workbook/trace/plot.py:28)

# Named by a string: StreamPlan's fault names
stall_after  # unused variable (workbook/engine/streaming.py:49)

# Set for the reader of a record (a stream's length in ms; a channel's peer, kept for the judge's
# own checks): not read in this repository. total_ms is a candidate for removal
_.total_ms  # unused attribute (workbook/engine/streaming.py:136)
trusted_peer  # unused variable (workbook/link/endpoint.py:46)
trusted_peer  # unused variable (workbook/link/kernel_side.py:61)

# The judge's cell runner and fast runner: keyword arguments IPython passes, and a TemporaryDirectory
# kept alive as an attribute
store_history  # unused variable (autograder/judge/cells.py:58)
_.tempdir  # unused attribute (autograder/judge/runner.py:94)
encoding  # unused variable (tests/fast_runner.py:88)
_.writelines  # unused method (tests/fast_runner.py:98)
_.isatty  # unused method (tests/fast_runner.py:105)
_.tempdir  # unused attribute (tests/fast_runner.py:313)

# pytest: fixtures requested by name (autouse, or a test's parameter), a test double's protocol
_._id  # unused attribute (tests/conftest.py:59)
no_hang  # unused function (tests/test_collect_safety.py:41)
_.returns  # unused attribute (tests/test_given_code_in_sync.py:86)
empty_caches  # unused function (tests/test_judge_bounds_objects.py:18)
empty_caches  # unused variable (tests/test_judge_bounds_objects.py:26)
empty_caches  # unused variable (tests/test_judge_bounds_objects.py:33)
empty_caches  # unused variable (tests/test_judge_bounds_objects.py:43)
__eq__  # unused function (tests/test_judge_codec_shape.py:110)
graces  # unused function (tests/test_judge_sleep.py:66)
graces  # unused variable (tests/test_judge_sleep.py:92)
graces  # unused variable (tests/test_judge_sleep.py:102)
graces  # unused variable (tests/test_judge_sleep.py:135)
graces  # unused variable (tests/test_judge_sleep.py:143)
graces  # unused variable (tests/test_judge_sleep.py:150)
graces  # unused variable (tests/test_judge_sleep.py:156)
graces  # unused variable (tests/test_judge_sleep.py:169)
graces  # unused variable (tests/test_judge_sleep.py:197)
graces  # unused variable (tests/test_judge_sleep.py:204)

# Chapters: code shown to the student (a pydantic model_config, a tool the text names, an unpacked
# tuple's unused parts, a tool the model may call)
currency  # unused variable (solutions/02_the_loop/02_the_loop.py:132)
rounding  # unused variable (solutions/02_the_loop/02_the_loop.py:132)
block_card  # unused function (solutions/02_the_loop/02_the_loop.py:244)
model_config  # unused variable (solutions/05_errors_are_observations/05_errors_are_observations.py:160)
add_numbers  # unused function (solutions/18_mcp_by_hand/18_mcp_by_hand.py:1039)
_.handle_async_request  # unused method (workbook/frameworks.py: httpx2 calls it, an AsyncBaseTransport's hook)
_._platform  # unused attribute (workbook/frameworks.py: the openai SDK reads it before a request)
# workbook/frameworks.py AgentsTrace: the Agents SDK calls a TracingProcessor's hooks
_.on_trace_start  # unused method
_.on_trace_end  # unused method
_.on_span_start  # unused method
_.on_span_end  # unused method
_.force_flush  # unused method
# A judge object's class says what of it a graded notebook may use (workbook/link/trust.py reads them)
LINK_DATA  # unused variable (workbook: Desk, Connection, Chatter, SiteResponse, Recorder, CappedClient)
LINK_CALL_ONLY  # unused variable (workbook/engine/function_face.py FunctionModel)
_.writable  # unused method (tests/fast_runner.py _Stream: the io protocol asks it of sys.stdout)
spending  # unused function (solutions/02_the_loop/02_the_loop.py: a tool the test registers with @tool)
