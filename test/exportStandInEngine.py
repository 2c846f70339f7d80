"""Stand-ins for what the exported loops meet on a cluster: a subword tokenizer, vLLM, and the
engines' classes around the loops (verl 0.6.1's agent loop and tool, OpenRLHF 0.11.0's executor).
Standard library only; test/exportStandInEngine.test.ts feeds it the cases on stdin.

Each copies the real system's behaviour, awkward cases included, from the source named beside it:

- BpeTokenizer: byte-pair encoding with merges learned here from a small corpus of both tool
  formats, after a pre-tokenizer shaped like Qwen2's (transformers, models/qwen2/tokenization_qwen2.py,
  PRETOKENIZE_REGEX, with ASCII classes for \\p{L} and \\p{N}): punctuation takes the newlines after it,
  so "```\\n" and ">\\n" are single tokens and a closing fence or tag ends inside a token (Qwen2.5's
  "```\\n" is one token too). <|endoftext|> is a special token, written into the text unless
  skip_special_tokens.
- StandInVllm: vLLM's detokenizer (vllm/v1/engine/detokenizer.py, v0.11.0 and v0.27.0, read from
  docs.vllm.ai's rendered source): the text grows token by token; a stop string is looked for in the
  text the new token added (check_stop_strings), and when found the text is cut after it
  (include_stop_str_in_output) or before it, while token_ids keep the whole token; finish_reason is
  then "stop" and stop_reason the string. EOS ends with finish_reason "stop", stop_reason None and
  the EOS id in token_ids; its text is written only with include_stop_str_in_output (update() skips
  it otherwise) and skip_special_tokens=False. Reaching max_tokens gives "length", unless the same
  token completed a stop string (the output processor then reports the stop).
- verl_server_generate: verl's vLLMHttpServer.generate (verl/workers/rollout/vllm_rollout/
  vllm_async_server.py:373-415 at d62da495): max_tokens is max_model_len minus the prompt, set by
  the server (a max_tokens in the loop's params would be a second value: TypeError), logprobs
  popped, vLLM's default skip_special_tokens=True, and only token ids and log-probs come back.
- MultiTurnAgentExecutor: OpenRLHF's (openrlhf/utils/agent.py:31-181 at 3c3be623): the prompt
  tokenized without special tokens, max_tokens = max_length - tokens so far, a deep copy of the
  params to the engine, action ranges over the generated ids as the engine returned them, step()
  with the engine's text, the feedback tokenized and appended, the params step() returns used next.
  OpenRLHF's SamplingParams start with skip_special_tokens=False and min_tokens=1
  (openrlhf/trainer/ppo_utils/samples_generator.py:203-211).
"""
import asyncio
import json
import re
import sys
import types
from copy import deepcopy

EOS_TEXT = "<|endoftext|>"
# Qwen2's pre-tokenizer pattern with ASCII letter and digit classes (stdlib re has no \p{L}).
_PRETOKENIZE = re.compile(r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def training_corpus():
    """Text of the kind the model writes, in both formats, to learn merges from."""
    lines = []
    for a, b in [(347, 29), (12, 7), (6, 7), (88, 41), (5, 9), (31, 3), (1000, 17), (42, 2)]:
        for lead in ["", " ", "Let me compute. "]:
            lines.append(f"{lead}```python\nprint({a}*{b})\n```\n```output\n{a * b}\n```\nAnswer: {a * b}")
            lines.append(f"{lead}<code>\nprint({a}+{b})\n</code>\n<interpreter>\n{a + b}\n</interpreter>\nAnswer: {a + b}")
            lines.append(f"{lead}Q: what is {a}*{b}?\nA: The answer is {a * b}.\nAnswer: {a * b}")
    return "\n".join(lines)


class BpeTokenizer:
    """Byte-pair encoding over characters: `merges` pairs learned from `corpus`, applied by rank."""

    def __init__(self, corpus, extra_chars, merges):
        words = {}
        for piece in _PRETOKENIZE.findall(corpus):
            words[piece] = words.get(piece, 0) + 1
        alphabet = sorted(set(corpus) | set(extra_chars))
        self.vocab = list(alphabet)
        self.ranks = {}
        splits = {w: list(w) for w in words}
        for _ in range(merges):
            pairs = {}
            for w, count in words.items():
                parts = splits[w]
                for pair in zip(parts, parts[1:]):
                    pairs[pair] = pairs.get(pair, 0) + count
            if not pairs:
                break
            best = max(pairs, key=lambda p: (pairs[p], p))
            self.ranks[best] = len(self.ranks)
            self.vocab.append(best[0] + best[1])
            for w in words:
                splits[w] = self._merge_once(splits[w], best)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        self.eos_token_id = len(self.vocab)
        self.eos_token = EOS_TEXT

    @staticmethod
    def _merge_once(parts, pair):
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == pair:
                out.append(parts[i] + parts[i + 1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        return out

    def _encode_piece(self, piece):
        parts = list(piece)
        while len(parts) > 1:
            ranked = [(self.ranks.get(p, len(self.ranks)), p) for p in zip(parts, parts[1:])]
            rank, pair = min(ranked)
            if rank == len(self.ranks):
                break
            parts = self._merge_once(parts, pair)
        return [self.ids[p] for p in parts]

    def encode(self, text, add_special_tokens=False):
        ids = []
        for i, chunk in enumerate(text.split(EOS_TEXT)):
            if i > 0:
                ids.append(self.eos_token_id)
            for piece in _PRETOKENIZE.findall(chunk):
                ids += self._encode_piece(piece)
        return ids

    def token_text(self, token_id, skip_special_tokens):
        if token_id == self.eos_token_id:
            return "" if skip_special_tokens else EOS_TEXT
        return self.vocab[token_id]

    def decode(self, ids, skip_special_tokens=False):
        return "".join(self.token_text(i, skip_special_tokens) for i in ids)

    # transformers' call shape, as OpenRLHF uses it: tokenizer(text=..., return_tensors="pt")["input_ids"][0].tolist()
    def __call__(self, text, add_special_tokens=False, return_tensors=None):
        ids = self.encode(text)
        return {"input_ids": [types.SimpleNamespace(tolist=lambda: list(ids))]}

    def apply_chat_template(self, messages, add_generation_prompt=True, tokenize=True, **kwargs):
        return self.encode("".join(m["content"] for m in messages))


class ScriptedPolicy:
    """The model: writes planned units of text token by token, then EOS or filler.

    A unit is a policy segment of a lab rollout plus what the model writes after it when the
    segment ends on a fence that ran ("\\n" after a closing fence): the engine stops inside or at
    the end of the token that completes the fence, and after the tool output the model writes the
    next unit. `stopped()` tells it the engine stopped; text of the unit past the segment is dropped.
    """

    def __init__(self, tokenizer, units, ends_with_eos):
        self.tokenizer = tokenizer
        self.units = [(text, tokenizer.encode(text + run_on)) for text, run_on in units]
        self.unit, self.cursor = 0, 0
        self.ends_with_eos = ends_with_eos
        self.filler = tokenizer.encode(" more")

    def next_token(self):
        while self.unit < len(self.units) and self.cursor >= len(self.units[self.unit][1]):
            self.unit, self.cursor = self.unit + 1, 0
        if self.unit < len(self.units):
            token = self.units[self.unit][1][self.cursor]
            self.cursor += 1
            return token
        if self.ends_with_eos:
            return self.tokenizer.eos_token_id
        return self.filler[0]

    def stopped(self):
        if self.unit < len(self.units):
            text, ids = self.units[self.unit]
            if len(self.tokenizer.decode(ids[: self.cursor])) >= len(text):
                self.unit, self.cursor = self.unit + 1, 0


class StandInVllm:
    """One sequence at a time, with vLLM's stop, EOS and length handling (see the module docstring)."""

    def __init__(self, tokenizer, policy):
        self.tokenizer = tokenizer
        self.policy = policy
        self.stops_inside_a_token = 0
        self.eos_in_text = 0
        self.generations = 0

    def run(self, max_tokens, stop, include_stop_str_in_output, skip_special_tokens):
        self.generations += 1
        stop = list(stop or [])
        ids, text = [], ""
        while True:
            token = self.policy.next_token()
            ids.append(token)
            if token == self.tokenizer.eos_token_id:
                if include_stop_str_in_output:
                    text += self.tokenizer.token_text(token, skip_special_tokens)
                self.eos_in_text += text.endswith(EOS_TEXT)
                return ids, text, "stop", None
            new = self.tokenizer.token_text(token, skip_special_tokens)
            text += new
            for s in stop:
                at = text.find(s, max(0, len(text) - len(new) - len(s) + 1))
                if at >= 0:
                    end = at + len(s) if include_stop_str_in_output else at
                    if at + len(s) < len(text):
                        self.stops_inside_a_token += 1
                    self.policy.stopped()
                    return ids, text[:end], "stop", s
            if len(ids) >= max_tokens:
                return ids, text, "length", None


# vLLM's SamplingParams fields the loops may set (vllm/sampling_params.py).
_SAMPLING_FIELDS = {"n", "temperature", "top_p", "top_k", "min_p", "seed", "stop", "stop_token_ids", "max_tokens", "min_tokens",
                    "logprobs", "skip_special_tokens", "include_stop_str_in_output", "repetition_penalty", "ignore_eos"}


def make_sampling_params(**kwargs):
    unknown = set(kwargs) - _SAMPLING_FIELDS
    if unknown:
        raise TypeError("SamplingParams got unexpected keyword arguments %s" % sorted(unknown))
    params = dict(stop=None, include_stop_str_in_output=False, skip_special_tokens=True, max_tokens=16, logprobs=None, min_tokens=0)
    params.update(kwargs)
    return types.SimpleNamespace(**params)


def verl_server_generate(engine, max_model_len):
    async def generate(request_id, *, prompt_ids, sampling_params, image_data=None):
        params = dict(sampling_params)
        params["logprobs"] = 0 if params.pop("logprobs", False) else None
        # SamplingParams(max_tokens=..., **params): a second max_tokens is a TypeError.
        if "max_tokens" in params:
            raise TypeError("SamplingParams() got multiple values for keyword argument 'max_tokens'")
        p = make_sampling_params(max_tokens=max_model_len - len(prompt_ids), **params)
        ids, _, _, _ = engine.run(p.max_tokens, p.stop, p.include_stop_str_in_output, p.skip_special_tokens)
        return types.SimpleNamespace(token_ids=ids, log_probs=[-0.5] * len(ids) if p.logprobs is not None else None)

    return generate


class AttrDict(dict):
    __getattr__ = dict.__getitem__


def install_verl_stand_ins():
    """verl's modules the exported agent loop and tool import, as far as they use them."""
    agent_loop = types.ModuleType("verl.experimental.agent_loop.agent_loop")

    class AgentLoopBase:
        _class_initialized = False

        def __init__(self, trainer_config, server_manager, tokenizer, processor, **kwargs):
            self.init_class(config=trainer_config.config, tokenizer=tokenizer, processor=processor, **kwargs)
            self.config = trainer_config.config
            self.server_manager = server_manager
            self.tokenizer = tokenizer
            self.processor = processor
            self.loop = asyncio.get_running_loop()

    class AgentLoopOutput:
        def __init__(self, **fields):
            self.__dict__.update(fields)

    agent_loop.AgentLoopBase, agent_loop.AgentLoopOutput = AgentLoopBase, AgentLoopOutput
    registry = types.ModuleType("verl.tools.utils.tool_registry")
    # The real one reads tool_config.yaml and builds its tools; each case sets the loop's own.
    registry.initialize_tools_from_config = None
    base_tool = types.ModuleType("verl.tools.base_tool")

    class BaseTool:
        def __init__(self, config, tool_schema):
            self.config = config
            self.tool_schema = tool_schema

    base_tool.BaseTool = BaseTool
    schemas = types.ModuleType("verl.tools.schemas")
    schemas.ToolResponse = lambda **kwargs: types.SimpleNamespace(**kwargs)
    for name in ["verl", "verl.experimental", "verl.experimental.agent_loop", "verl.tools", "verl.tools.utils"]:
        sys.modules[name] = types.ModuleType(name)
    sys.modules.update({"verl.experimental.agent_loop.agent_loop": agent_loop, "verl.tools.utils.tool_registry": registry,
                        "verl.tools.base_tool": base_tool, "verl.tools.schemas": schemas})


def install_openrlhf_stand_ins():
    torch = types.ModuleType("torch")
    torch.tensor = lambda x: types.SimpleNamespace(item=lambda: x)
    agent = types.ModuleType("openrlhf.utils.agent")

    class AgentInstanceBase:
        def __init__(self, *args, **kwargs):
            pass

    class MultiTurnAgentExecutor:
        def __init__(self, agent_instance_cls):
            assert issubclass(agent_instance_cls, AgentInstanceBase)
            self.agent_instance_cls = agent_instance_cls

        async def execute(self, prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images=None):
            instance = self.agent_instance_cls()
            observation_text = (await instance.reset({"observation": prompt, "label": label}))["observation"]
            tokens = hf_tokenizer(text=observation_text, add_special_tokens=False, return_tensors="pt")["input_ids"][0].tolist()
            action_ranges, total_reward = [], 0.0
            while True:
                sampling_params.max_tokens = max_length - len(tokens)
                if sampling_params.max_tokens <= 0:
                    break
                output = (await llm_engine.generate(tokens, deepcopy(sampling_params), multi_modal_data=None)).outputs[0]
                action_ranges.append((len(tokens), len(tokens) + len(output.token_ids)))
                result = await instance.step({"observation_text": observation_text, "action_text": output.text,
                                              "label": label, "sampling_params": sampling_params})
                total_reward += result["rewards"].item()
                feedback = hf_tokenizer(text=result["environment_feedback"], add_special_tokens=False, return_tensors="pt")["input_ids"][0].tolist()
                observation_text += output.text + result["environment_feedback"]
                tokens = tokens + list(output.token_ids) + feedback
                if result.get("sampling_params", None):
                    sampling_params = result["sampling_params"]
                if result["done"]:
                    break
            return {"observation_tokens": tokens, "action_ranges": action_ranges, "reward": total_reward}

    agent.AgentInstanceBase, agent.MultiTurnAgentExecutor = AgentInstanceBase, MultiTurnAgentExecutor
    sys.modules.update({"torch": torch, "openrlhf": types.ModuleType("openrlhf"), "openrlhf.utils": types.ModuleType("openrlhf.utils"),
                        "openrlhf.utils.agent": agent})


def openrlhf_engine(engine):
    """OpenRLHF's vLLM engine as the executor calls it: generate(prompt ids, SamplingParams, multi_modal_data)."""

    async def generate(prompt_token_ids, params, multi_modal_data=None):
        ids, text, finish, stop_reason = engine.run(params.max_tokens, params.stop, params.include_stop_str_in_output, params.skip_special_tokens)
        out = types.SimpleNamespace(token_ids=ids, text=text, finish_reason=finish, stop_reason=stop_reason, logprobs=None)
        return types.SimpleNamespace(outputs=[out])

    return types.SimpleNamespace(generate=generate)


TOOL_OPEN = {"zerotir": "\n```output\n", "retool": "\n<interpreter>\n"}
TOOL_CLOSE = {"zerotir": "\n```\n", "retool": "\n</interpreter>\n"}


def plan(case):
    """The lab rollout as the policy's units and the tool's results (each reproducing the lab's block)."""
    units, results = [], []
    segments = case["segments"]
    for i, seg in enumerate(segments):
        if seg["kind"] == "policy":
            runs = i + 1 < len(segments)
            units.append((seg["text"], case["runOn"] if runs else ""))
        else:
            inner = seg["text"][len(TOOL_OPEN[case["format"]]):]
            close = TOOL_CLOSE[case["format"]]
            inner = inner[: -len(close)] if inner.endswith(close) else inner
            results.append({"ok": True, "stdout": inner + "\n", "truncated": False})
    return units, results


def results_feed(results):
    queue = list(results)
    # A rollout the lab cut at its length cap may end on a fence the lab did not run: any result.
    return lambda: queue.pop(0) if queue else {"ok": True, "stdout": "0\n", "truncated": False}


BIG = 10 ** 6


def spans(ids, mask, tokenizer):
    """The response as (kind, text) runs: "policy" for mask 1, "env" for mask 0; special tokens skipped."""
    out = []
    for token, m in zip(ids, mask):
        kind = "policy" if m == 1 else "env"
        text = tokenizer.token_text(token, True)
        if out and out[-1][0] == kind:
            out[-1][1] += text
        else:
            out.append([kind, text])
    return [{"kind": k, "text": t} for k, t in out if t != ""]


RESPONSE_TOKENS = 300


async def drive_verl(cases, tokenizer, bundle_dir):
    """Each case through the bundle's TirAgentLoop.run (verl_agent_loop.py, verl_tool.py) on StandInVllm."""
    install_verl_stand_ins()
    sys.path.insert(0, bundle_dir)
    import verl_agent_loop
    import verl_tool

    episodes = []
    run_episode = verl_agent_loop.run_tir_episode

    async def recording_run(*args, **kwargs):
        out = await run_episode(*args, **kwargs)
        episodes.append(out[4])
        return out

    verl_agent_loop.run_tir_episode = recording_run
    outcomes, counts = [], {"generations": 0, "stops_inside_a_token": 0, "eos_in_text": 0}
    for case in cases:
        units, results = plan(case)
        feed = results_feed(results)
        verl_tool.run_code = lambda code, timeout_s, max_bytes: feed()
        tool = verl_tool.TirCodeInterpreterTool({"format": case["format"], "max_output_chars": BIG, "timeout_s": 2, "max_output_bytes": BIG}, None)
        verl_agent_loop.initialize_tools_from_config = lambda path: [tool]
        verl_agent_loop.TirAgentLoop._class_initialized = False
        multi_turn = AttrDict(tool_config_path="tool_config.yaml", max_user_turns=case["nmax"])
        rollout = AttrDict(multi_turn=multi_turn, response_length=RESPONSE_TOKENS)
        config = AttrDict(actor_rollout_ref=AttrDict(rollout=rollout), data=AttrDict())
        prompt_ids = tokenizer.encode(case["prompt"])
        engine = StandInVllm(tokenizer, ScriptedPolicy(tokenizer, units, case["endedWithEos"]))
        server = types.SimpleNamespace(generate=verl_server_generate(engine, len(prompt_ids) + RESPONSE_TOKENS))
        loop = verl_agent_loop.TirAgentLoop(types.SimpleNamespace(config=config), server, tokenizer, None)
        out = await loop.run({"temperature": 1.0, "top_p": 1.0, "repetition_penalty": 1.0, "logprobs": True},
                             raw_prompt=[{"role": "user", "content": case["prompt"]}], reward_model={"ground_truth": str(case["answer"])})
        counts["generations"] += engine.generations
        counts["stops_inside_a_token"] += engine.stops_inside_a_token
        counts["eos_in_text"] += engine.eos_in_text
        outcomes.append({"reward": out.reward_score, "episodeText": episodes[-1].response_text(),
                         "spans": spans(out.response_ids, out.response_mask, tokenizer), "responseTokens": len(out.response_ids),
                         "logprobs": len(out.response_logprobs) == len(out.response_ids), "calls": episodes[-1].executed})
    return {"outcomes": outcomes, "counts": counts}


async def drive_openrlhf(cases, tokenizer, bundle_dir):
    """Each case through the bundle's AgentExecutor (agent_func.py) in the stand-in executor, on StandInVllm."""
    install_openrlhf_stand_ins()
    sys.path.insert(0, bundle_dir)
    import agent_func

    instances = []
    reset = agent_func.AgentInstance.reset

    async def recording_reset(self, states, **kwargs):
        instances.append(self)
        return await reset(self, states, **kwargs)

    agent_func.AgentInstance.reset = recording_reset
    outcomes, counts = [], {"generations": 0, "stops_inside_a_token": 0, "eos_in_text": 0}
    for case in cases:
        units, results = plan(case)
        feed = results_feed(results)
        agent_func.run_code = lambda code, timeout_s, max_bytes: feed()
        agent_func.CONFIG.update(format=case["format"], nmax=case["nmax"], max_output_chars=BIG)
        engine = StandInVllm(tokenizer, ScriptedPolicy(tokenizer, units, case["endedWithEos"]))
        prompt_ids = tokenizer.encode(case["prompt"])
        # samples_generator.py:203-211: OpenRLHF's first params.
        params = make_sampling_params(temperature=1.0, top_p=1.0, top_k=-1, max_tokens=None, min_tokens=1, skip_special_tokens=False)
        out = await agent_func.AgentExecutor().execute(case["prompt"], str(case["answer"]), params, len(prompt_ids) + RESPONSE_TOKENS,
                                                       tokenizer, openrlhf_engine(engine))
        response = out["observation_tokens"][len(prompt_ids):]
        mask = [0] * len(response)
        for start, end in out["action_ranges"]:
            for i in range(start, end):
                mask[i - len(prompt_ids)] = 1
        counts["generations"] += engine.generations
        counts["stops_inside_a_token"] += engine.stops_inside_a_token
        counts["eos_in_text"] += engine.eos_in_text
        outcomes.append({"reward": out["reward"], "episodeText": instances[-1].episode.response_text(),
                         "spans": spans(response, mask, tokenizer), "responseTokens": len(response), "logprobs": True,
                         "calls": instances[-1].episode.executed})
    return {"outcomes": outcomes, "counts": counts}


def main(engine, bundle_dir, tool_format):
    cases = json.load(sys.stdin)
    tokenizer = BpeTokenizer(training_corpus(), "".join(c["prompt"] + "".join(s["text"] for s in c["segments"]) for c in cases) + " more", 120)
    drive = drive_verl if engine == "verl" else drive_openrlhf
    result = asyncio.run(drive(cases, tokenizer, bundle_dir))
    call = {"zerotir": " ```python\nprint(1)\n```\n", "retool": " <code>\nprint(1)\n</code>\n"}[tool_format]
    result["split"] = [tokenizer.decode([t]) for t in tokenizer.encode(call)]
    json.dump(result, sys.stdout)
