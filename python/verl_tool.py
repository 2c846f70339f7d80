"""verl tool and tool parsers for a TIR Lab experiment (verl 0.6.1, commit d62da495).

tool_config.yaml names TirCodeInterpreterTool (class_name verl_tool.TirCodeInterpreterTool); loading it
imports this file, which registers the tool parsers `tir_zerotir` and `tir_retool`
(actor_rollout_ref.rollout.multi_turn.format). The parser finds the first closed code block of an
assistant turn with the lab's state machine (tir_episode.py), so a fence or ReTool tag is the call,
not hermes JSON; the tool runs the code in the sandbox (tir_sandbox.py) and answers with the lab's
output block, cut to max_output_chars with the lab's marker. Each call gets a fresh interpreter, as
in the lab. The engine imports are guarded, so this file imports with the standard library alone.
"""
import asyncio
import json
import os
import sys
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tir_episode import EXECUTE, TOOL_FORMATS, ToolEpisode, output_block  # noqa: E402
from tir_sandbox import run_code  # noqa: E402

TOOL_NAME = "code_interpreter"


def first_code_call(text, format_name):
    """The code of the first closed block in `text` (what the lab would run first), or None."""
    episode = ToolEpisode(format_name, nmax=1, max_output_chars=0)
    action, _ = episode.push_policy_text(text)
    return episode.pending_code if action == EXECUTE else None


try:
    from verl.experimental.agent_loop.tool_parser import FunctionCall, ToolParser
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # the lab's tests: no engine installed
    FunctionCall = ToolParser = BaseTool = ToolResponse = None


if ToolParser is not None:

    def _register_parser(format_name):
        @ToolParser.register("tir_" + format_name)
        class TirToolParser(ToolParser):
            async def extract_tool_calls(self, responses_ids):
                loop = asyncio.get_running_loop()
                text = await loop.run_in_executor(None, self.tokenizer.decode, responses_ids)
                code = first_code_call(text, format_name)
                if code is None:
                    return text, []
                return text, [FunctionCall(name=TOOL_NAME, arguments=json.dumps({"code": code}))]

        return TirToolParser

    for _name in TOOL_FORMATS:
        _register_parser(_name)

    class TirCodeInterpreterTool(BaseTool):
        """Runs one code block; config: format, max_output_chars, timeout_s, max_output_bytes."""

        async def create(self, instance_id=None, **kwargs):
            return instance_id or str(uuid4()), ToolResponse()

        async def execute(self, instance_id, parameters, **kwargs):
            code = parameters.get("code", "")
            if not isinstance(code, str):
                code = str(code)
            result = await asyncio.to_thread(run_code, code, self.config["timeout_s"], self.config["max_output_bytes"])
            text = output_block(TOOL_FORMATS[self.config["format"]], result, self.config["max_output_chars"])
            return ToolResponse(text=text), 0.0, {"ok": bool(result.get("ok"))}

        async def release(self, instance_id, **kwargs):
            return None
