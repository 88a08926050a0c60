"""The names of OpenTelemetry's GenAI semantic conventions, taken from the package that defines
them (`opentelemetry-semantic-conventions`; the version followed and its status: docs/SOURCES.md).

    from workbook.trace import genai
    genai.OPERATION_NAME          # "gen_ai.operation.name"
    genai.CHAT, genai.EXECUTE_TOOL, genai.INVOKE_AGENT   # its three values in this course

The conventions are in Development status: names may still change, so code reads them from here
(one place) rather than spelling them out.
"""

from __future__ import annotations

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as _g
from opentelemetry.semconv.attributes import error_attributes as _e
from opentelemetry.semconv.version import __version__ as SEMCONV_PACKAGE

# What an operation is, and who serves it
OPERATION_NAME = _g.GEN_AI_OPERATION_NAME
PROVIDER_NAME = _g.GEN_AI_PROVIDER_NAME
CONVERSATION_ID = _g.GEN_AI_CONVERSATION_ID
AGENT_NAME = _g.GEN_AI_AGENT_NAME
# A model call
REQUEST_MODEL = _g.GEN_AI_REQUEST_MODEL
RESPONSE_MODEL = _g.GEN_AI_RESPONSE_MODEL
RESPONSE_ID = _g.GEN_AI_RESPONSE_ID
FINISH_REASONS = _g.GEN_AI_RESPONSE_FINISH_REASONS
INPUT_TOKENS = _g.GEN_AI_USAGE_INPUT_TOKENS  # every input token, cached ones included
OUTPUT_TOKENS = _g.GEN_AI_USAGE_OUTPUT_TOKENS
CACHE_READ_TOKENS = _g.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS
# A tool call
TOOL_NAME = _g.GEN_AI_TOOL_NAME
TOOL_CALL_ID = _g.GEN_AI_TOOL_CALL_ID
# Content: recorded only when the user opts in (the conventions' "Opt-In" level)
INPUT_MESSAGES = _g.GEN_AI_INPUT_MESSAGES
OUTPUT_MESSAGES = _g.GEN_AI_OUTPUT_MESSAGES
TOOL_CALL_ARGUMENTS = _g.GEN_AI_TOOL_CALL_ARGUMENTS
TOOL_CALL_RESULT = _g.GEN_AI_TOOL_CALL_RESULT
CONTENT = (INPUT_MESSAGES, OUTPUT_MESSAGES, TOOL_CALL_ARGUMENTS, TOOL_CALL_RESULT)
# A failure: the span's status is ERROR and error.type says what kind (a class name, a status)
ERROR_TYPE = _e.ERROR_TYPE

# Values of gen_ai.operation.name (GenAiOperationNameValues) and of gen_ai.provider.name
CHAT = _g.GenAiOperationNameValues.CHAT.value
EXECUTE_TOOL = _g.GenAiOperationNameValues.EXECUTE_TOOL.value
INVOKE_AGENT = _g.GenAiOperationNameValues.INVOKE_AGENT.value
OPENAI = _g.GenAiProviderNameValues.OPENAI.value

# The course's own attributes (no convention holds them; a `workbook.` prefix says whose they are)
STOP_STATUS = "workbook.stop_status"  # how the run ended: "done" or "STOPPED: <reason>"
STEP = "workbook.step"  # the step a model call was (a trajectory's step number)

__all__ = ["AGENT_NAME", "CACHE_READ_TOKENS", "CHAT", "CONTENT", "CONVERSATION_ID", "ERROR_TYPE",
           "EXECUTE_TOOL", "FINISH_REASONS", "INPUT_MESSAGES", "INPUT_TOKENS", "INVOKE_AGENT",
           "OPENAI", "OPERATION_NAME", "OUTPUT_MESSAGES", "OUTPUT_TOKENS", "PROVIDER_NAME",
           "REQUEST_MODEL", "RESPONSE_ID", "RESPONSE_MODEL", "SEMCONV_PACKAGE", "STEP",
           "STOP_STATUS", "TOOL_CALL_ARGUMENTS", "TOOL_CALL_ID", "TOOL_CALL_RESULT", "TOOL_NAME"]
