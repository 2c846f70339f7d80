"""verl tool for a TIR Lab experiment (verl 0.6.1, commit d62da495): tool_config.yaml names it
(class_name verl_tool.TirCodeInterpreterTool) with the run's format and limits.

The exported agent loop (verl_agent_loop.py) runs each closed code block through run(), which
calls the sandbox (tir_sandbox.py); execute() answers verl's own tool loop with the lab's output
block, cut to max_output_chars with the lab's marker. Each call gets a fresh interpreter, as in the
lab. The engine imports are guarded, so this file imports with the standard library alone.
"""
import asyncio
import os
import sys
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tir_episode import TOOL_FORMATS, output_block  # noqa: E402
from tir_sandbox import run_code  # noqa: E402


try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # the lab's tests: no engine installed
    BaseTool = ToolResponse = None


if BaseTool is not None:

    class TirCodeInterpreterTool(BaseTool):
        """Runs one code block; config: format, max_output_chars, timeout_s, max_output_bytes."""

        async def create(self, instance_id=None, **kwargs):
            return instance_id or str(uuid4()), ToolResponse()

        async def run(self, code):
            """The sandbox's result for one block (a dict for tir_episode.format_tool_output)."""
            return await asyncio.to_thread(run_code, code, self.config["timeout_s"], self.config["max_output_bytes"])

        async def execute(self, instance_id, parameters, **kwargs):
            code = parameters.get("code", "")
            result = await self.run(code if isinstance(code, str) else str(code))
            text = output_block(TOOL_FORMATS[self.config["format"]], result, self.config["max_output_chars"])
            return ToolResponse(text=text), 0.0, {"ok": bool(result.get("ok"))}

        async def release(self, instance_id, **kwargs):
            return None
