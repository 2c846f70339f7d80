"""OpenRLHF agent for a TIR Lab experiment: `--train.agent_func_path agent_func.py` (OpenRLHF 0.11.0).

Each response runs the lab's state machine (tir_episode.py): generation stops on the opening fence,
then on the closing fence; the code runs in the sandbox (tir_sandbox.py), and the output block goes
back as environment feedback. OpenRLHF trains only on generated spans (action ranges), so the output
block carries no loss, as in the lab. After Nmax executed calls the stop strings are dropped and the
model must finish. The reward is reward.py's answer_reward on the whole response, with EOS told
apart from the length cap by vLLM's finish reason, and EOS's own text (written into the text, since
OpenRLHF samples with skip_special_tokens=False) left out of what is scored.

The experiment's settings come from tir_config.json beside this file. The engine imports are
guarded, so this file imports with the standard library alone (the lab's tests load it so).
"""
import asyncio
import json
import os
import sys
from copy import deepcopy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reward import answer_reward  # noqa: E402
from tir_episode import CONTINUE, DONE, EXECUTE, TOOL_FORMATS, ToolEpisode  # noqa: E402
from tir_sandbox import run_code  # noqa: E402

try:
    import torch
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
except ImportError:  # the lab's tests: no engine installed
    torch = None
    AgentInstanceBase = object
    MultiTurnAgentExecutor = object

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tir_config.json")) as _f:
    CONFIG = json.load(_f)


def _reward_value(value):
    return torch.tensor(float(value)) if torch is not None else float(value)


def _next_params(sampling_params, stops):
    params = deepcopy(sampling_params)
    params.stop = stops
    params.include_stop_str_in_output = True
    return params


class _GenerationRecorder:
    """Passes generation to the engine and keeps how the last generation ended (vLLM's output)."""

    def __init__(self, engine, tokenizer):
        self.engine = engine
        self.tokenizer = tokenizer
        self.last_finish_reason = None
        self.last_output = None

    async def generate(self, *args, **kwargs):
        output = await self.engine.generate(*args, **kwargs)
        self.last_output = output.outputs[0]
        self.last_finish_reason = self.last_output.finish_reason
        return output

    def policy_text(self, action_text):
        """The last generation's text as the episode reads it.

        vLLM's text ends at a stop string, but its token ids run to the end of the token that held
        it: the text past the stop is added back (past an opening fence it is code the model wrote;
        past a closing fence the episode drops it). When a token stopped it (EOS, or another stop
        token: vLLM's stop_reason is then None or the token's id, not a string), vLLM writes that
        token into the text, since OpenRLHF samples with skip_special_tokens=False and this agent
        with include_stop_str_in_output=True (`Answer: 34<|endoftext|>`): that text is cut off.
        """
        out = self.last_output
        if out is None or out.finish_reason != "stop" or len(out.token_ids) == 0:
            return action_text
        if isinstance(out.stop_reason, str):
            whole = self.tokenizer.decode(list(out.token_ids), skip_special_tokens=False)
            return whole if whole.startswith(action_text) else action_text
        stop_token = self.tokenizer.decode([out.token_ids[-1]], skip_special_tokens=False)
        return action_text[: -len(stop_token)] if stop_token and action_text.endswith(stop_token) else action_text


class AgentInstance(AgentInstanceBase):
    """One response's environment. `recorder` is bound per response by AgentExecutor."""

    recorder = None

    def __init__(self, *args, **kwargs):
        self.episode = None
        self.label = None

    async def reset(self, states, **kwargs):
        self.episode = ToolEpisode(CONFIG["format"], CONFIG["nmax"], CONFIG["max_output_chars"])
        self.label = int(states["label"])
        return {"observation": states["observation"]}

    async def step(self, states, **kwargs):
        stops = self.episode.stop_strings()
        action_text = states["action_text"] if self.recorder is None else self.recorder.policy_text(states["action_text"])
        action, _ = self.episode.push_policy_text(action_text)
        feedback = ""
        if action == EXECUTE:
            result = await asyncio.to_thread(run_code, self.episode.pending_code, CONFIG["sandbox_timeout_ms"] / 1000,
                                             CONFIG["max_output_bytes"])
            feedback = self.episode.push_tool_result(result)
        elif action == CONTINUE and not any(stop in action_text for stop in stops):
            # Neither fence: generation ended on EOS or at the length cap.
            cut = self.recorder is not None and self.recorder.last_finish_reason == "length"
            if cut:
                self.episode.done = True
            else:
                action = self.episode.push_eos()
        done = action == DONE or self.episode.done
        reward = answer_reward(self.episode.response_text(), self.episode.ended_with_eos, self.label) if done else 0
        return {
            "rewards": _reward_value(reward),
            "scores": _reward_value(reward),
            "environment_feedback": feedback,
            "done": done,
            "sampling_params": _next_params(states["sampling_params"], self.episode.stop_strings()),
            "extra_logs": {"code_calls": _reward_value(self.episode.executed)},
        }


class AgentExecutor(MultiTurnAgentExecutor):
    def __init__(self):
        super().__init__(AgentInstance)

    async def execute(self, prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images=None):
        recorder = _GenerationRecorder(llm_engine, hf_tokenizer)
        # A class per response binds its recorder without sharing state between concurrent responses.
        bound = type("BoundAgentInstance", (AgentInstance,), {"recorder": recorder})
        first = _next_params(sampling_params, [] if CONFIG["nmax"] == 0 else [TOOL_FORMATS[CONFIG["format"]]["code_open"]])
        return await MultiTurnAgentExecutor(bound).execute(prompt, label, first, max_length, hf_tokenizer, recorder, images)
