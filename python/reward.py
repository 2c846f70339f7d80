"""TIR Lab's strict answer reward in Python: the same rule as src/core/tasks/reward.ts.

A response earns 1 only when it ended with EOS (not at the length cap), exactly one line of the whole
response starts with `Answer:` (after at most one space; tool output lines count, so a program that
prints an `Answer:` line and a policy that writes one are two answers and score 0), and that line is
the last line and is exactly `Answer: <integer>` in canonical form with nothing after it.

The integer is always read from the last line, which only the policy can write: every output block
ends with a newline, so a line after it is the policy's. Tool output can refuse a reward, never earn it.

verl: custom_reward_function.path=reward.py, custom_reward_function.name=compute_score.
Standard library only.
"""
import re

_ANSWER_LINE_START = re.compile(r"^ ?Answer:")
_FINAL_ANSWER_LINE = re.compile(r"^ ?Answer: (0|-?[1-9][0-9]*)$")
# Number.isSafeInteger in the lab: larger integers are not exact in a double, so they score 0 there.
_MAX_SAFE_INTEGER = 2 ** 53 - 1
# Its 16 digits: a longer answer is never safe, and is refused before int(), which raises past
# sys.get_int_max_str_digits() (4300 by default) where the lab returns 0.
_MAX_SAFE_DIGITS = len(str(_MAX_SAFE_INTEGER))


def extract_final_answer(response):
    """The integer of the response's final `Answer:` line when the response obeys the format; else None."""
    lines = response.split("\n")
    answer_lines = [line for line in lines if _ANSWER_LINE_START.match(line)]
    if len(answer_lines) != 1:
        return None
    match = _FINAL_ANSWER_LINE.match(lines[-1])
    if match is None:
        return None
    digits = match.group(1)
    if len(digits.lstrip("-")) > _MAX_SAFE_DIGITS:
        return None
    value = int(digits)
    return value if abs(value) <= _MAX_SAFE_INTEGER else None


def answer_reward(response, ended_with_eos, answer):
    """1 when the response ended with EOS and its final answer equals `answer` (an int); else 0."""
    return 1 if ended_with_eos and extract_final_answer(response) == answer else 0


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's reward entry point. `ground_truth` is the answer as a string (reward_model.ground_truth).

    verl decodes the response without special tokens, so whether it ended with EOS is not in
    `solution_str`; a caller that knows passes extra_info["ended_with_eos"], else EOS is assumed
    (see docs/scale-out.md: a response cut at the length cap is where verl may differ).
    """
    ended_with_eos = True
    if extra_info is not None and "ended_with_eos" in extra_info:
        ended_with_eos = bool(extra_info["ended_with_eos"])
    return float(answer_reward(solution_str, ended_with_eos, int(ground_truth)))
