/**
 * The cluster bundles: verl's parquet reads back with a parquet reader and holds verl's schema,
 * both engines' data are the lab's split, run.sh carries every knob, the zip holds the files, and
 * the Python files import with the standard library alone and run the lab's loop.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { bundleZip } from '../src/core/export/bundleZip';
import { clusterBundle, PYTHON_FILES, type BundleFiles } from '../src/core/export/clusterBundle';
import { KNOB_MAPPINGS } from '../src/core/export/engineKnobs';
import type { EngineName } from '../src/core/export/engineVersions';
import { knobTableRows } from '../src/core/export/knobTable';
import { testSet } from '../src/core/tasks/splits';
import { runPython, PYTHON_SOURCES } from './pythonExport';

const CLASSROOM = PRESETS.classroom;
const pythonFiles = Object.fromEntries(
  [...new Set([...PYTHON_FILES.verl, ...PYTHON_FILES.openrlhf])].map((name) => [name, readFileSync(join(PYTHON_SOURCES, name), 'utf8')]),
);

function bundle(engine: EngineName, config: ExperimentConfig = CLASSROOM, trainSize = 200): BundleFiles {
  return clusterBundle({ engine, config, model: 'Qwen/Qwen2.5-0.5B', trainSize, source: 'classroom' }, pythonFiles);
}

function arrayBuffer(bytes: string | Uint8Array): ArrayBuffer {
  if (typeof bytes === 'string') throw new Error('expected bytes');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

interface VerlRowRead {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: { split: string; index: bigint; family: string; tier: string; need_tools_kwargs: boolean; tools_kwargs: { code_interpreter: { create_kwargs: { ground_truth: string } } } };
  agent_name: string;
}

const TEST_PROMPTS = testSet().map((p) => `Q: ${p.question}\nA:`);

describe('verl data', () => {
  const files = bundle('verl');

  it('reads back with a parquet reader, in verl\'s schema', async () => {
    const file = arrayBuffer(files['data/train.parquet']);
    const schema = parquetSchema(parquetMetadata(file));
    expect(schema.children.map((c) => c.element.name)).toEqual(['data_source', 'prompt', 'ability', 'reward_model', 'extra_info', 'agent_name']);
    const prompt = schema.children[1];
    expect(prompt.element.converted_type).toBe('LIST');
    expect(prompt.children[0].element.repetition_type).toBe('REPEATED');
    expect(prompt.children[0].children[0].children.map((c) => c.element.name)).toEqual(['role', 'content']);
    const rows = (await parquetReadObjects({ file })) as VerlRowRead[];
    expect(rows).toHaveLength(200);
    rows.forEach((row, i) => {
      expect(row.data_source).toBe('tir_lab');
      expect(row.ability).toBe('math');
      expect(row.agent_name).toBe('tir_agent');
      expect(row.prompt).toHaveLength(1);
      expect(row.prompt[0].role).toBe('user');
      expect(row.prompt[0].content).toMatch(/between ```python and ```/);
      expect(row.reward_model.style).toBe('rule');
      expect(row.reward_model.ground_truth).toMatch(/^(0|-?[1-9]\d*)$/);
      expect(row.extra_info.split).toBe('train');
      expect(Number(row.extra_info.index)).toBe(i);
      expect(row.extra_info.need_tools_kwargs).toBe(true);
      expect(row.extra_info.tools_kwargs.code_interpreter.create_kwargs.ground_truth).toBe(row.reward_model.ground_truth);
      // The lab's split: no train prompt is a held-out question.
      expect(TEST_PROMPTS.some((t) => row.prompt[0].content.endsWith(`\n\n${t}`))).toBe(false);
    });
    // The classroom mix over 200 seeded draws: every non-arithmetic kind (0.6) is hard, and half the
    // arithmetic (0.4 x 1/2): 0.8 hard, so 160 expected, sd sqrt(200 x 0.8 x 0.2) = 5.7.
    const hard = rows.filter((r) => r.extra_info.tier === 'hard').length;
    expect(hard).toBeGreaterThan(140);
    expect(hard).toBeLessThan(180);
  });

  it('holds the lab\'s held-out set as the test split, in order, with its answers', async () => {
    const rows = (await parquetReadObjects({ file: arrayBuffer(files['data/test.parquet']) })) as VerlRowRead[];
    const held = testSet();
    expect(rows.map((r) => r.prompt[0].content.split('\n\n').at(-1))).toEqual(TEST_PROMPTS);
    expect(rows.map((r) => r.reward_model.ground_truth)).toEqual(held.map((p) => String(p.answer)));
    expect(rows.map((r) => r.extra_info.family)).toEqual(held.map((p) => p.family));
    expect(rows.every((r) => r.extra_info.split === 'test')).toBe(true);
  });

  it('is the same for the same seed and config, and another train draw for another seed', () => {
    expect(bundle('verl')['data/train.parquet']).toEqual(files['data/train.parquet']);
    const other = bundle('verl', { ...CLASSROOM, seed: 2 });
    expect(other['data/train.parquet']).not.toEqual(files['data/train.parquet']);
    expect(other['data/test.parquet']).toEqual(files['data/test.parquet']);
  });

  it('writes the tool and agent loop configs with the run\'s limits; Nmax from max_user_turns', () => {
    const yaml = files['tool_config.yaml'] as string;
    expect(yaml).toContain('class_name: verl_tool.TirCodeInterpreterTool');
    expect(yaml).toContain('format: zerotir');
    expect(yaml).toContain('max_output_chars: 64');
    expect(yaml).toContain('timeout_s: 2');
    expect(yaml).toContain('name: code_interpreter');
    expect(files['agent_loop.yaml']).toContain('- name: tir_agent\n  _target_: verl_agent_loop.TirAgentLoop');
    const run = files['run.sh'] as string;
    expect(run).toContain('actor_rollout_ref.rollout.agent.agent_loop_config_path="$HERE/agent_loop.yaml"');
    expect(run).toContain('actor_rollout_ref.rollout.multi_turn.tool_config_path="$HERE/tool_config.yaml"');
    expect(run).toContain('actor_rollout_ref.rollout.multi_turn.max_user_turns=2');
    expect(bundle('verl', { ...CLASSROOM, nmax: 0 })['run.sh']).toContain('actor_rollout_ref.rollout.multi_turn.max_user_turns=0');
    expect(bundle('verl', { ...CLASSROOM, format: 'retool' })['tool_config.yaml']).toContain('format: retool');
  });
});

describe('OpenRLHF data', () => {
  it('is JSONL with the input and label keys, the held-out set as the test split', () => {
    const files = bundle('openrlhf', { ...PRESETS.classroom, format: 'retool' });
    const train = (files['data/train.jsonl'] as string).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const test = (files['data/test.jsonl'] as string).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(train).toHaveLength(200);
    expect(Object.keys(train[0])).toEqual(['prompt', 'label', 'split', 'index', 'family', 'tier']);
    expect(train[0].prompt).toMatch(/between <code> and <\/code>/);
    expect(test.map((r) => r.label)).toEqual(testSet().map((p) => String(p.answer)));
    expect(test.map((r) => (r.prompt as string).split('\n\n').at(-1))).toEqual(TEST_PROMPTS);
    expect(JSON.parse(files['tir_config.json'] as string)).toEqual({
      nmax: 2,
      format: 'retool',
      max_output_chars: 64,
      timeout_s: 2,
      max_output_bytes: 1024,
      sandbox_timeout_ms: 2000,
    });
    const run = files['run.sh'] as string;
    for (const flag of ['--data.input_key prompt', '--data.label_key label', '--train.agent_func_path "$HERE/agent_func.py"', '--eval.dataset "$HERE/data/test.jsonl"']) {
      expect(run).toContain(flag);
    }
  });
});

describe('run.sh', () => {
  it("maps every knob of the lab, and docs/scale-out.md's table is that mapping with the classroom preset's values", () => {
    const knobs = KNOB_MAPPINGS.map((m) => m.knob);
    expect([...knobs].sort()).toEqual(Object.keys(CLASSROOM).sort());
    const docRows = readFileSync('docs/scale-out.md', 'utf8').split('\n').filter((line) => line.startsWith('| `'));
    expect(docRows).toEqual(knobTableRows(CLASSROOM));
  });

  it('follows the knobs: algorithm, clip, KL, group, temperature, length, filter band, learning rate', () => {
    const config: ExperimentConfig = {
      ...CLASSROOM,
      algorithm: 'grpo',
      gamma: 0.99,
      lambda: 0.95,
      clipEps: 0.28,
      klCoef: 0.01,
      klEstimator: 'k1',
      groupSize: 16,
      minibatchSize: 64,
      temperature: 1,
      maxResponseTokens: 200,
      filterLow: 0.2,
      filterHigh: 0.8,
      learningRate: 1e-6,
    };
    const verl = bundle('verl', config)['run.sh'] as string;
    for (const arg of [
      'algorithm.adv_estimator=grpo',
      'algorithm.gamma=0.99',
      'algorithm.lam=0.95',
      'actor_rollout_ref.actor.clip_ratio=0.28',
      'actor_rollout_ref.actor.use_kl_loss=True',
      'actor_rollout_ref.actor.kl_loss_coef=0.01',
      'actor_rollout_ref.actor.kl_loss_type=kl',
      'actor_rollout_ref.rollout.n=16',
      'actor_rollout_ref.actor.ppo_mini_batch_size=4',
      'actor_rollout_ref.rollout.temperature=1',
      'data.max_response_length=200',
      'actor_rollout_ref.actor.optim.lr=0.000001',
    ]) {
      expect(verl, arg).toContain(`  ${arg} \\`);
    }
    expect(verl).not.toContain('critic.');
    const openrlhf = bundle('openrlhf', config)['run.sh'] as string;
    for (const arg of [
      '--algo.advantage.estimator group_norm',
      '--algo.advantage.gamma 0.99',
      '--algo.advantage.lambd 0.95',
      '--actor.eps_clip 0.28',
      '--algo.kl.use_loss',
      '--algo.kl.init_coef 0.01',
      '--algo.kl.estimator k1',
      '--rollout.n_samples_per_prompt 16',
      '--train.batch_size 64',
      '--rollout.temperature 1',
      '--data.max_len 456',
      '--algo.dynamic_filtering_range 0.2 0.8',
      '--actor.adam.lr 0.000001',
    ]) {
      expect(openrlhf, arg).toContain(`  ${arg} \\`);
    }
    expect(openrlhf).not.toContain('--critic.');
    expect(bundle('openrlhf', { ...config, algorithm: 'reinforce++' })['run.sh']).toContain('--algo.advantage.estimator reinforce_baseline');
    expect(bundle('verl', { ...config, algorithm: 'reinforce++' })['run.sh']).toContain('algorithm.adv_estimator=reinforce_plus_plus_baseline');
  });
});

describe('the zip', () => {
  it('holds every file of the bundle under one folder, run.sh executable', () => {
    const files = bundle('verl');
    const zipped = unzipSync(bundleZip('tir-lab-verl', files));
    expect(Object.keys(zipped).sort()).toEqual(Object.keys(files).map((p) => `tir-lab-verl/${p}`).sort());
    expect(strFromU8(zipped['tir-lab-verl/run.sh'])).toBe(files['run.sh']);
    expect(zipped['tir-lab-verl/data/train.parquet']).toEqual(files['data/train.parquet']);
  });
});

describe('the exported Python', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function written(engine: EngineName): string {
    const dir = mkdtempSync(join(tmpdir(), `tir-export-${engine}-`));
    dirs.push(dir);
    for (const [path, contents] of Object.entries(bundle(engine))) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), contents);
    }
    return dir;
  }

  it('imports with the standard library alone (engine imports guarded)', () => {
    for (const engine of ['verl', 'openrlhf'] as const) {
      const dir = written(engine);
      const loaded = runPython<string[]>(
        `sys.path.insert(0, ${JSON.stringify(dir)})
import importlib
for name in ${JSON.stringify(PYTHON_FILES[engine].map((f) => f.replace('.py', '')))}:
    importlib.import_module(name)
json.dump(sorted(m for m in ("torch", "verl", "openrlhf", "ray", "vllm", "requests") if m in sys.modules), sys.stdout)`,
        null,
      );
      expect(loaded).toEqual([]);
    }
  });

  it("OpenRLHF's agent runs the lab's loop: stops on the fences, runs the code, rewards the final answer", () => {
    const dir = written('openrlhf');
    const steps = runPython<{ feedback: string; done: boolean; reward: number; stop: string[] }[]>(
      `sys.path.insert(0, ${JSON.stringify(dir)})
import asyncio
from types import SimpleNamespace
import agent_func
class Params(SimpleNamespace):
    pass
async def episode(actions, finish_reason):
    agent = agent_func.AgentInstance()
    agent.recorder = SimpleNamespace(last_finish_reason=finish_reason, policy_text=lambda text: text)
    await agent.reset({"observation": "Q: what is 6*7?\\nA:", "label": "42"})
    out = []
    for action in actions:
        r = await agent.step({"action_text": action, "label": "42", "sampling_params": Params(stop=None)})
        out.append({"feedback": r["environment_feedback"], "done": r["done"], "reward": r["rewards"], "stop": r["sampling_params"].stop})
    return out
async def main():
    good = await episode([" \`\`\`python", "\\nprint(6*7)\\n\`\`\`", "\\nAnswer: 42"], "stop")
    cut = await episode([" Answer: 42"], "length")
    return good + cut
json.dump(asyncio.run(main()), sys.stdout)`,
      null,
      { TIR_ALLOW_UNSANDBOXED: '1' },
    );
    expect(steps).toEqual([
      { feedback: '', done: false, reward: 0, stop: ['```'] },
      { feedback: '\n```output\n42\n```\n', done: false, reward: 0, stop: ['```python'] },
      { feedback: '', done: true, reward: 1, stop: ['```python'] },
      // Cut at the length cap: no EOS, no reward, as in the lab.
      { feedback: '', done: true, reward: 0, stop: ['```python'] },
    ]);
  });

  it('refuses to run code when no sandbox was chosen', () => {
    const message = runPython<string>(
      `from tir_sandbox import run_code
try:
    run_code("print(1)", 2, 1024)
    json.dump("ran", sys.stdout)
except RuntimeError as e:
    json.dump(str(e), sys.stdout)`,
      null,
    );
    expect(message).toMatch(/TIR_SANDBOX_URL/);
  });
});

describe('README.md', () => {
  it("lists, for its engine, each knob not reproduced exactly with the reason, and no exact one", () => {
    for (const engine of ['verl', 'openrlhf'] as const) {
      const readme = bundle(engine)['README.md'] as string;
      const listed = readme.split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2, line.indexOf(' (')));
      expect(listed).toEqual(KNOB_MAPPINGS.filter((m) => m.fit[engine] !== 'exact').map((m) => m.knob));
    }
    const verl = bundle('verl')['README.md'] as string;
    expect(verl).toMatch(/^# TIR Lab experiment for verl 0\.6\.1\n/);
    expect(verl).toContain('What verl 0.6.1 does not reproduce exactly');
    expect(bundle('openrlhf')['README.md']).toMatch(/^# TIR Lab experiment for OpenRLHF 0\.11\.0\n/);
    expect(verl).toContain("- learningRateDecaySteps (none in verl): Neither engine offers inverse-time decay: the export runs at the initial rate throughout, so the classroom preset's decaying rate is not reproduced.");
    expect(verl).toContain('- dualClip (approximate in verl): ');
    // OpenRLHF's --actor.dual_clip is the lab's dual clip: exact, so not listed.
    expect(bundle('openrlhf')['README.md']).not.toContain('- dualClip (');
  });
});
