"""verl agent loop for a TIR Lab experiment: the lab's episode (verl 0.6.1, commit d62da495).

Registered as `tir_agent` by agent_loop.yaml (actor_rollout_ref.rollout.agent.agent_loop_config_path);
every data row names it (agent_name). Each generation stops on the state machine's next fence
(vLLM stop strings, kept in the output), a closed block runs in the sandbox through the tool of
tool_config.yaml (verl_tool.TirCodeInterpreterTool), and its output block goes into the response
with mask 0. Nmax is actor_rollout_ref.rollout.multi_turn.max_user_turns. The loop also scores the
response with reward.py, knowing what verl's reward function cannot: whether it ended with EOS or
at the response length cap. The engine imports are guarded, so this file imports with the standard
library alone (the lab's tests drive run_tir_episode with stand-ins).
"""
import os
import sys
import time
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reward import answer_reward  # noqa: E402
from tir_episode import EXECUTE, ToolEpisode  # noqa: E402


async def run_tir_episode(generate, run_code, encode, decode, prompt_ids, settings, response_length, eos_ids):
    """One response: returns (response_ids, response_mask, logprobs, reward, episode, metrics).

    generate(ids, stop) -> (token ids, logprobs or None): the engine's continuation, up to and including
    the token that completed a stop string (or EOS, or as many tokens as the engine allows).
    run_code(code) -> a result dict for format_tool_output. settings: format, nmax, max_output_chars.
    """
    episode = ToolEpisode(settings["format"], settings["nmax"], settings["max_output_chars"])
    response_ids, response_mask, logprobs = [], [], []
    metrics = {"generate_sequences": 0.0, "tool_calls": 0.0}
    while True:
        room = response_length - len(response_ids)
        stops = episode.stop_strings()
        started = time.perf_counter()
        ids, lps = await generate(prompt_ids + response_ids, stops)
        metrics["generate_sequences"] += time.perf_counter() - started
        ids = list(ids)
        # The lab counts EOS as a response token: an EOS that fits ends the response; past the cap it is cut.
        cut = len(ids) > room
        ids = ids[:room]
        lps = list(lps)[: len(ids)] if lps is not None else [0.0] * len(ids)
        text = decode(ids)
        # vLLM stops on a stop string found anywhere in the new text but returns the whole last token,
        # so the text may run past the fence (the closing fence often shares a token with "\n"). The
        # episode takes the text up to the fence that changes its state; characters past a closing
        # fence stay in the ids (sampled, with their log-probs) but not in the scored response.
        stopped_on_fence = not cut and any(stop in text for stop in stops)
        ended_with_eos = not cut and not stopped_on_fence and (len(ids) < room or (len(ids) > 0 and ids[-1] in eos_ids))
        response_ids += ids
        response_mask += [1] * len(ids)
        logprobs += lps
        action, _ = episode.push_policy_text(text)
        if ended_with_eos:
            episode.push_eos()
            break
        if len(response_ids) >= response_length:
            break
        if action == EXECUTE:
            started = time.perf_counter()
            result = await run_code(episode.pending_code)
            metrics["tool_calls"] += time.perf_counter() - started
            block_ids = encode(episode.push_tool_result(result))[: response_length - len(response_ids)]
            response_ids += block_ids
            response_mask += [0] * len(block_ids)
            logprobs += [0.0] * len(block_ids)
            if len(response_ids) >= response_length:
                break
            continue
        if not stopped_on_fence:
            break
    reward = answer_reward(episode.response_text(), episode.ended_with_eos, int(settings["ground_truth"]))
    return response_ids, response_mask, logprobs, reward, episode, metrics


try:
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput
    from verl.tools.utils.tool_registry import initialize_tools_from_config
except ImportError:  # the lab's tests: no engine installed
    AgentLoopBase = None


if AgentLoopBase is not None:

    class TirAgentLoop(AgentLoopBase):
        @classmethod
        def init_class(cls, config, tokenizer, processor, **kwargs):
            if cls._class_initialized:
                return
            cls._class_initialized = True
            turns = config.actor_rollout_ref.rollout.multi_turn
            tools = initialize_tools_from_config(turns.tool_config_path)
            cls.tool = tools[0]
            cls.nmax = int(turns.max_user_turns or 0)
            cls.response_length = config.actor_rollout_ref.rollout.response_length
            cls.eos_ids = {tokenizer.eos_token_id}
            cls.apply_chat_template_kwargs = config.data.get("apply_chat_template_kwargs", {})

        async def run(self, sampling_params, **kwargs):
            messages = list(kwargs["raw_prompt"])
            prompt_ids = await self.loop.run_in_executor(
                None, lambda: self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                                 **self.apply_chat_template_kwargs))
            request_id = uuid4().hex

            async def generate(ids, stops):
                params = dict(sampling_params, stop=stops, include_stop_str_in_output=True)
                output = await self.server_manager.generate(request_id=request_id, prompt_ids=ids, sampling_params=params)
                return output.token_ids, output.log_probs

            def encode(text):
                return self.tokenizer.encode(text, add_special_tokens=False)

            def decode(ids):
                return self.tokenizer.decode(ids, skip_special_tokens=True)

            settings = {"format": self.tool.config["format"], "nmax": self.nmax,
                        "max_output_chars": self.tool.config["max_output_chars"],
                        "ground_truth": kwargs["reward_model"]["ground_truth"]}
            response_ids, response_mask, logprobs, reward, episode, metrics = await run_tir_episode(
                generate, self.tool.run, encode, decode, prompt_ids, settings, self.response_length, self.eos_ids)
            return AgentLoopOutput(
                prompt_ids=prompt_ids,
                response_ids=response_ids,
                response_mask=response_mask,
                response_logprobs=logprobs if sampling_params.get("logprobs") else None,
                reward_score=float(reward),
                num_turns=2 + 2 * episode.executed,
                metrics=metrics,
            )
