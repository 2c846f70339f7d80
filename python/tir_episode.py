"""TIR Lab's tool-use episode in Python: the same state machine as src/core/rollout/episode.ts.

In text, the policy's characters are scanned for the opening fence; in code, for the closing
fence. On a closing fence the code is executed (while fewer than `nmax` calls have run) and the
environment appends the output block, which carries no loss. After `nmax` executed calls a fence is
plain text. Standard library only: the exported agent (OpenRLHF) and tool parser (verl) import it,
and the lab's tests replay its own transcripts through it.

Lengths are counted in characters, as the lab's tokenizer is one token per character (EOS counts
one). On a cluster the engine counts real tokens itself: pass max_response_tokens=None there.
"""

OUTPUT_TRUNCATED_MARKER = "...[output truncated]"

TOOL_FORMATS = {
    "zerotir": {"code_open": "```python", "code_close": "```", "output_open": "\n```output\n", "output_close": "\n```\n"},
    "retool": {"code_open": "<code>", "code_close": "</code>", "output_open": "\n<interpreter>\n", "output_close": "\n</interpreter>\n"},
}


def _error_line(error_type, message):
    """The last line of the error message, prefixed by the error type unless it already starts with it."""
    if error_type is None:
        return "Error"
    lines = (message or "").rstrip().split("\n")
    last = lines[-1].strip()
    if last == "":
        return error_type
    if last == error_type or last.startswith(error_type + ":"):
        return last
    return error_type + ": " + last


def format_tool_output(result, max_chars):
    """What the model reads back from a run (a dict: ok, stdout, truncated, error_type, error_message).

    stdout without its final newline, then the error line when the run failed; text past max_chars
    characters, or output the sandbox already cut, ends with a visible truncation line.
    """
    stdout = result.get("stdout", "")
    if stdout.endswith("\n"):
        stdout = stdout[:-1]
    text = stdout
    if not result.get("ok", False):
        line = _error_line(result.get("error_type"), result.get("error_message", ""))
        text = line if stdout == "" else stdout + "\n" + line
    if len(text) <= max_chars and not result.get("truncated", False):
        return text
    kept = text[:max_chars]
    if kept == "" or kept.endswith("\n"):
        return kept + OUTPUT_TRUNCATED_MARKER
    return kept + "\n" + OUTPUT_TRUNCATED_MARKER


def output_block(tool_format, result, max_output_chars):
    """The environment's whole block for one call: output_open, the formatted output, output_close."""
    return tool_format["output_open"] + format_tool_output(result, max_output_chars) + tool_format["output_close"]


CONTINUE = "continue"
EXECUTE = "execute"
DONE = "done"


class ToolEpisode:
    """One response, fed character by character (push_policy_char) or a generated chunk at a time."""

    def __init__(self, tool_format, nmax, max_output_chars, max_response_tokens=None):
        if isinstance(tool_format, str):
            tool_format = TOOL_FORMATS[tool_format]
        if not isinstance(nmax, int) or nmax < 0:
            raise ValueError("nmax must be an integer >= 0, got %r" % (nmax,))
        self.format = tool_format
        self.nmax = nmax
        self.max_output_chars = max_output_chars
        self.max_response_tokens = max_response_tokens
        # (kind, text) runs: "policy" sampled by the model, "env" inserted by the environment.
        self.segments = []
        self.calls = []
        self.length = 0
        self.done = False
        self.ended_with_eos = False
        self.pending_code = None
        self.executed = 0
        self._in_code = False
        self._region = ""

    def _append(self, kind, text):
        if text == "":
            return
        if self.segments and self.segments[-1][0] == kind:
            self.segments[-1] = (kind, self.segments[-1][1] + text)
        else:
            self.segments.append((kind, text))

    def _at_cap(self):
        return self.max_response_tokens is not None and self.length >= self.max_response_tokens

    def response_text(self):
        return "".join(text for _, text in self.segments)

    def policy_text(self):
        return "".join(text for kind, text in self.segments if kind == "policy")

    def push_eos(self):
        """The policy ended the response (EOS counts as one token of the response)."""
        self._check_can_push()
        self.length += 1
        self.done = True
        self.ended_with_eos = True
        return DONE

    def push_policy_char(self, ch):
        """Appends one sampled character; returns CONTINUE, EXECUTE (then call push_tool_result) or DONE."""
        self._check_can_push()
        self.length += 1
        self._append("policy", ch)
        self._region += ch
        action = self._advance_fence_state()
        if self._at_cap():
            self.done = True
            return DONE
        return action

    def push_policy_text(self, text):
        """Feeds a generated chunk; returns (action, the rest of `text` after the action's character).

        On a cluster a stop string ends generation at the fence's token, so the rest is what that
        token held past the fence (vLLM returns whole tokens); text past an EXECUTE or DONE is not part
        of the response.
        """
        for i, ch in enumerate(text):
            action = self.push_policy_char(ch)
            if action != CONTINUE:
                return action, text[i + 1:]
        return CONTINUE, ""

    def push_tool_result(self, result):
        """Runs' result for the awaited call (see format_tool_output); appends and returns the env text."""
        return self.push_environment_text(output_block(self.format, result, self.max_output_chars), result)

    def push_environment_text(self, block, result=None):
        """Appends an output block as environment text (cut at the length cap); returns what was appended."""
        if self.pending_code is None:
            raise RuntimeError("no call is awaiting a result")
        self.calls[-1]["result"] = result
        self.pending_code = None
        if self.max_response_tokens is not None:
            block = block[: max(self.max_response_tokens - self.length, 0)]
        self.length += len(block)
        self._append("env", block)
        self._region = ""
        if self._at_cap():
            self.done = True
        return block

    def _check_can_push(self):
        if self.done:
            raise RuntimeError("the episode is finished")
        if self.pending_code is not None:
            raise RuntimeError("a tool result is awaited: call push_tool_result first")

    def _advance_fence_state(self):
        code_open, code_close = self.format["code_open"], self.format["code_close"]
        if not self._in_code:
            if self._region.endswith(code_open):
                self._in_code = True
                self._region = ""
            return CONTINUE
        if not self._region.endswith(code_close):
            return CONTINUE
        code = self._region[: -len(code_close)]
        if code.startswith("\n"):
            code = code[1:]
        if code.endswith("\n"):
            code = code[:-1]
        self._in_code = False
        self._region = ""
        # Executing needs room for at least one output token before the cap.
        execute = self.executed < self.nmax and not self._at_cap()
        self.calls.append({"code": code, "executed": execute})
        if not execute:
            return CONTINUE
        self.executed += 1
        self.pending_code = code
        return EXECUTE

    def stop_strings(self):
        """What the next generation should stop on: the fence that changes state, none once Nmax is spent."""
        if self.executed >= self.nmax:
            return []
        return [self.format["code_close"] if self._in_code else self.format["code_open"]]
