/**
 * The exported loops drive an engine as the lab's episode does: verl's agent loop
 * (verl_agent_loop.run_tir_episode) and OpenRLHF's agent (agent_func.AgentExecutor, run by a
 * stand-in for OpenRLHF 0.11.0's MultiTurnAgentExecutor) on the seeded streams of
 * exportStreams.ts, with a character tokenizer and a generator that honours vLLM's stop strings,
 * give the lab's response tokens, loss mask and reward.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { clusterBundle, PYTHON_FILES } from '../src/core/export/clusterBundle';
import { Episode } from '../src/core/rollout/episode';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import type { Problem } from '../src/core/tasks/problem';
import { answerReward } from '../src/core/tasks/reward';
import { decode, EOS, encode } from '../src/core/tokenizer';
import { pythonResult, streamPlans, type StreamPlan } from './exportStreams';
import { PYTHON_SOURCES, runPython } from './pythonExport';

interface LoopOutcome {
  tokens: string[];
  mask: number[];
  reward: number;
}

/** The lab: its episode on the stream, a result per executed call, EOS when the stream ends. */
function labOutcome(plan: StreamPlan): LoopOutcome {
  const episode = new Episode([], { format: TOOL_FORMATS[plan.format], nmax: plan.nmax, maxResponseTokens: plan.maxResponseTokens, maxOutputChars: plan.maxOutputChars });
  let calls = 0;
  for (const id of [...encode(plan.text), EOS]) {
    if (episode.pushPolicyToken(id).type === 'execute') episode.pushToolResult(plan.results[calls++]);
    if (episode.done) break;
  }
  return {
    tokens: episode.tokens.map((t) => (t === EOS ? '<eos>' : decode([t]))),
    mask: episode.policyMask,
    reward: answerReward(episode.responseText(), episode.endedWithEos, { answer: 42 } as Problem),
  };
}

/** Character tokens (id = code point + 1) with 0 as EOS, and a scripted policy that stops where vLLM would. */
const STAND_INS = `
import asyncio, types
EOS = 0
def encode(text):
    return [ord(c) + 1 for c in text]
def decode(ids):
    return "".join(chr(i - 1) for i in ids if i != EOS)
class ScriptedPolicy:
    """Writes the stream; a generation ends after the first stop string, else with EOS at the stream's end."""
    def __init__(self, text):
        self.text, self.cursor = text, 0
    def next(self, stops):
        rest = self.text[self.cursor:]
        ends = [rest.find(s) + len(s) for s in stops if rest.find(s) >= 0]
        end = min(ends) if ends else len(rest)
        self.cursor += end
        return encode(rest[:end]) + ([] if ends else [EOS])
def tokens_of(ids):
    return ["<eos>" if i == EOS else chr(i - 1) for i in ids]
`;

/** An OpenRLHF bundle written out: agent_func.py reads its tir_config.json beside it. */
function writtenOpenRlhfBundle(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tir-export-agent-'));
  const python = Object.fromEntries(PYTHON_FILES.openrlhf.map((name) => [name, readFileSync(join(PYTHON_SOURCES, name), 'utf8')]));
  for (const [path, contents] of Object.entries(clusterBundle({ engine: 'openrlhf', config: PRESETS.classroom, model: 'm', trainSize: 1, source: 't' }, python))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  return dir;
}

describe('the exported agent loops against the lab episode', () => {
  const bundleDir = writtenOpenRlhfBundle();
  afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
  const plans = streamPlans(1503, 300);
  const lab = plans.map(labOutcome);
  const input = plans.map((p) => ({ ...p, results: p.results.map(pythonResult) }));

  it("verl's tir_agent loop gives the lab's tokens, mask and reward", () => {
    const verl = runPython<LoopOutcome[]>(
      `${STAND_INS}
from verl_agent_loop import run_tir_episode
async def case(p):
    policy = ScriptedPolicy(p["text"])
    results = iter(p["results"])
    async def generate(ids, stops):
        return policy.next(stops), None
    async def run_code(code):
        return next(results)
    settings = {"format": p["format"], "nmax": p["nmax"], "max_output_chars": p["maxOutputChars"], "ground_truth": "42"}
    ids, mask, _, reward, _, _ = await run_tir_episode(generate, run_code, encode, decode, [], settings, p["maxResponseTokens"], {EOS})
    return {"tokens": tokens_of(ids), "mask": mask, "reward": reward}
async def main():
    return [await case(p) for p in json.load(sys.stdin)]
json.dump(asyncio.run(main()), sys.stdout)`,
      input,
    );
    expect(verl).toEqual(lab);
  });

  it("OpenRLHF's AgentExecutor gives the lab's tokens, mask and reward", () => {
    const openrlhf = runPython<LoopOutcome[]>(
      `${STAND_INS}
# Stand-ins for torch and openrlhf.utils.agent (0.11.0): the executor generates with the agent's
# sampling params up to the budget, hands each action to step(), appends the feedback unmasked.
torch = types.ModuleType("torch")
torch.tensor = lambda x: types.SimpleNamespace(item=lambda: x)
agent = types.ModuleType("openrlhf.utils.agent")
class AgentInstanceBase:
    pass
class MultiTurnAgentExecutor:
    def __init__(self, agent_instance_cls):
        assert issubclass(agent_instance_cls, AgentInstanceBase)
        self.agent_instance_cls = agent_instance_cls
    async def execute(self, prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images=None):
        instance = self.agent_instance_cls()
        await instance.reset({"observation": prompt, "label": label})
        tokens, mask, reward = [], [], 0.0
        while max_length - len(tokens) > 0:
            sampling_params.max_tokens = max_length - len(tokens)
            output = (await llm_engine.generate(tokens, sampling_params)).outputs[0]
            tokens += output.token_ids
            mask += [1] * len(output.token_ids)
            result = await instance.step({"observation_text": "", "action_text": output.text, "label": label, "sampling_params": sampling_params})
            reward += result["rewards"].item()
            feedback = encode(result["environment_feedback"])
            tokens += feedback
            mask += [0] * len(feedback)
            sampling_params = result["sampling_params"]
            if result["done"]:
                break
        return {"tokens": tokens, "mask": mask, "reward": reward}
agent.AgentInstanceBase, agent.MultiTurnAgentExecutor = AgentInstanceBase, MultiTurnAgentExecutor
sys.modules.update({"torch": torch, "openrlhf": types.ModuleType("openrlhf"), "openrlhf.utils": types.ModuleType("openrlhf.utils"), "openrlhf.utils.agent": agent})
sys.path.insert(0, ${JSON.stringify(bundleDir)})
import agent_func
class Engine:
    """vLLM in characters: stops after a stop string (kept; stop_reason names it), at max_tokens
    ("length") or with EOS (stop_reason None); EOS writes no text, as with skip_special_tokens."""
    def __init__(self, policy, results):
        self.policy = policy
    async def generate(self, ids, params):
        out = self.policy.next(params.stop)
        reason = "length" if len(out) > params.max_tokens else "stop"
        out = out[:params.max_tokens]
        text = decode(out)
        stop_reason = next((s for s in params.stop if text.endswith(s)), None) if reason == "stop" else None
        return types.SimpleNamespace(outputs=[types.SimpleNamespace(token_ids=out, text=text, finish_reason=reason, stop_reason=stop_reason)])
tokenizer = types.SimpleNamespace(decode=lambda ids, skip_special_tokens=False: decode(ids))
async def case(p):
    agent_func.CONFIG.update(format=p["format"], nmax=p["nmax"], max_output_chars=p["maxOutputChars"])
    results = iter(p["results"])
    agent_func.run_code = lambda code, timeout_s, max_bytes: next(results)
    params = types.SimpleNamespace(stop=None, include_stop_str_in_output=False, max_tokens=None)
    out = await agent_func.AgentExecutor().execute("", "42", params, p["maxResponseTokens"], tokenizer, Engine(ScriptedPolicy(p["text"]), results))
    n = p["maxResponseTokens"]
    # OpenRLHF appends a whole feedback block past the budget; the lab cuts it at the cap.
    return {"tokens": tokens_of(out["tokens"])[:n], "mask": out["mask"][:n], "reward": out["reward"]}
async def main():
    return [await case(p) for p in json.load(sys.stdin)]
json.dump(asyncio.run(main()), sys.stdout)`,
      input,
    );
    expect(openrlhf).toEqual(lab);
  });

  it('covers every branch: calls run, calls past Nmax, the cap, right answers', () => {
    expect(lab.filter((o) => o.mask.includes(0)).length).toBeGreaterThan(30);
    expect(plans.filter((p, i) => p.nmax === 0 && lab[i].tokens.join('').includes(TOOL_FORMATS[p.format].codeClose)).length).toBeGreaterThan(10);
    expect(lab.filter((o) => o.tokens.at(-1) !== '<eos>').length).toBeGreaterThan(30);
    expect(lab.filter((o) => o.reward === 1).length).toBeGreaterThan(5);
  });
});
