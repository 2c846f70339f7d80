/**
 * Each bundle's run.sh, run for real (bash) up to the engine's entry point, against facts of the
 * pinned engine versions: the keys and flags it may pass, the settings that must not be null, and
 * the batch arithmetic and pairings the engines assert at start-up. Stand-in packages take the
 * engines' place: `verl.trainer.main_ppo` and `openrlhf.cli.train_ppo_ray` write the arguments they
 * get; openrlhf's package is empty, as 0.11.0's `openrlhf/__init__.py` is (0 bytes), and each has
 * the dist-info a pip install writes, which is where run.sh reads the version.
 *
 * The facts were read from the sources (no code copied), with `git show <commit>:<path>`:
 * verl 0.6.1, commit d62da4950573d7a4b7ef2362337952e7ab59e78d; OpenRLHF 0.11.0, commit
 * 3c3be6234e0cb353e76bb8019947db9dfe99fca7. Each fact names its file and line there.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { clusterBundle, PYTHON_FILES, type BundleRequest } from '../src/core/export/clusterBundle';
import type { EngineName } from '../src/core/export/engineVersions';
import { PYTHON_SOURCES } from './pythonExport';

/**
 * verl 0.6.1: every key of verl/trainer/config/_generated_ppo_trainer.yaml the bundle may set, with
 * its line and default there. `null` and `???` (mandatory) defaults are the ones validate_config
 * or Hydra refuse to start with when the bundle leaves them unset (rules below).
 */
const VERL_KEYS: Record<string, string> = {
  'actor_rollout_ref.actor.optim.lr': '12: 1.0e-06',
  'actor_rollout_ref.actor.ppo_mini_batch_size': '47: 256',
  'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu': '49: null',
  'actor_rollout_ref.actor.clip_ratio': '52: 0.2',
  'actor_rollout_ref.actor.clip_ratio_c': '64: 3.0',
  'actor_rollout_ref.actor.use_kl_loss': '67: false',
  'actor_rollout_ref.actor.kl_loss_coef': '69: 0.001',
  'actor_rollout_ref.actor.kl_loss_type': '70: low_var_kl',
  'actor_rollout_ref.actor.ppo_epochs': '71: 1',
  'actor_rollout_ref.actor.grad_clip': '107: 1.0',
  'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu': '116: null',
  'actor_rollout_ref.rollout.name': '169: ???',
  'actor_rollout_ref.rollout.mode': '170: sync',
  'actor_rollout_ref.rollout.temperature': '171: 1.0',
  'actor_rollout_ref.rollout.top_p': '173: 1',
  'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu': '193: null',
  'actor_rollout_ref.rollout.n': '198: 1',
  'actor_rollout_ref.rollout.val_kwargs.temperature': '208: 0',
  'actor_rollout_ref.rollout.val_kwargs.n': '209: 1',
  'actor_rollout_ref.rollout.multi_turn.enable': '213: false',
  'actor_rollout_ref.rollout.multi_turn.max_assistant_turns': '214: null',
  'actor_rollout_ref.rollout.multi_turn.tool_config_path': '215: null',
  'actor_rollout_ref.rollout.multi_turn.max_user_turns': '216: null',
  'actor_rollout_ref.rollout.multi_turn.max_parallel_calls': '217: 1',
  'actor_rollout_ref.rollout.agent.agent_loop_config_path': '230: null',
  'actor_rollout_ref.model.path': '260',
  'data.train_files': '285',
  'data.val_files': '286',
  'data.max_prompt_length': '291: 512',
  'data.max_response_length': '292: 512',
  'data.train_batch_size': '293: 1024',
  'data.return_raw_chat': '298: false',
  'data.seed': '301: null',
  'critic.optim.lr': '327: 1.0e-05',
  'critic.model.path': '361',
  'critic.ppo_micro_batch_size_per_gpu': '380: null',
  'critic.cliprange_value': '386: 0.5',
  'algorithm.gamma': '479: 1.0',
  'algorithm.lam': '480: 1.0',
  'algorithm.adv_estimator': '481: gae',
  'algorithm.use_kl_in_reward': '483: false',
  'custom_reward_function.path': '496: null',
  'custom_reward_function.name': '497: compute_score',
  'trainer.total_training_steps': '501: null',
  'trainer.project_name': '502',
  'trainer.experiment_name': '503',
  'trainer.logger': '504',
  'trainer.nnodes': '510: 1',
  'trainer.n_gpus_per_node': '511: 8',
  'trainer.test_freq': '518: -1',
};

/** What verl 0.6.1 refuses to start with, for the overrides run.sh passed (key -> value). */
function verlStartErrors(o: Map<string, string>): string[] {
  const errors = [...o.keys()].filter((k) => !(k in VERL_KEYS)).map((k) => `${k} is not a key of verl 0.6.1's ppo_trainer.yaml`);
  const int = (key: string) => Number(o.get(key));
  const microBatch = (section: string, param: string, why: string) => {
    // verl/utils/config.py:117-176 (check_mutually_exclusive), workers/config/actor.py:128-138,
    // workers/config/critic.py:98-99: one of the two, never neither, with use_dynamic_bsz false (its default, yaml:50).
    if (o.has(`${section}.${param}`) === o.has(`${section}.${param}_per_gpu`)) errors.push(`${section}: set ${param}_per_gpu (${why})`);
  };
  if (o.get('actor_rollout_ref.rollout.name') === undefined) errors.push('actor_rollout_ref.rollout.name is mandatory (yaml:169 ???)');
  microBatch('actor_rollout_ref.actor', 'ppo_micro_batch_size', 'actor.py:136');
  microBatch('actor_rollout_ref.rollout', 'log_prob_micro_batch_size', 'utils/config.py:164');
  // main_ppo.py:231: a reference policy exists when either KL is on; then utils/config.py:155-161 checks its micro-batch.
  if (o.get('actor_rollout_ref.actor.use_kl_loss') === 'True' || o.get('algorithm.use_kl_in_reward') === 'True') {
    microBatch('actor_rollout_ref.ref', 'log_prob_micro_batch_size', 'utils/config.py:157');
  }
  // trainer/ppo/utils.py:85-90: a critic when adv_estimator is gae (critic.enable unset, yaml:377).
  const critic = (o.get('algorithm.adv_estimator') ?? 'gae') === 'gae';
  if (critic) microBatch('critic', 'ppo_micro_batch_size', 'critic.py:99');
  if (!critic && [...o.keys()].some((k) => k.startsWith('critic.'))) errors.push('critic keys without a critic');
  // trainer/ppo/core_algos.py:97-100 (AdvantageEstimator), 1450 and 1461 (kl_penalty's names).
  if (!['gae', 'grpo', 'reinforce_plus_plus_baseline'].includes(o.get('algorithm.adv_estimator') ?? 'gae')) errors.push('unknown adv_estimator');
  if (!['kl', 'low_var_kl'].includes(o.get('actor_rollout_ref.actor.kl_loss_type') ?? 'low_var_kl')) errors.push('unknown kl_loss_type');
  // utils/config.py:87 and 105-113: the step's rollouts split evenly over n_gpus (FSDP: minimal_bsz = n_gpus).
  const gpus = int('trainer.n_gpus_per_node') * int('trainer.nnodes');
  const n = int('actor_rollout_ref.rollout.n');
  const prompts = int('data.train_batch_size');
  if ((prompts * n) % gpus !== 0) errors.push(`train_batch_size x n (${prompts * n}) not divisible by ${gpus} GPUs`);
  // workers/config/actor.py:153: train_batch_size >= ppo_mini_batch_size (critic.py:116 likewise).
  const mini = int('actor_rollout_ref.actor.ppo_mini_batch_size');
  if (prompts < mini) errors.push('train_batch_size below ppo_mini_batch_size');
  // workers/fsdp_workers.py:235-255 (actor) and 1192-1211 (critic, whose mini-batch is the actor's, yaml:378):
  // ppo_mini_batch_size * n // world size must be > 0 and divisible by the micro-batch per GPU.
  const perGpu = Math.floor((mini * n) / gpus);
  for (const key of ['actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu', ...(critic ? ['critic.ppo_micro_batch_size_per_gpu'] : [])]) {
    const micro = int(key);
    if (!(perGpu > 0 && Number.isInteger(micro) && micro > 0 && perGpu % micro === 0)) errors.push(`${key}=${o.get(key)} does not divide the per-GPU mini-batch ${perGpu}`);
  }
  return errors;
}

/**
 * OpenRLHF 0.11.0: every flag of openrlhf/cli/train_ppo_ray.py the bundle may pass, with the line
 * it is defined on and how many values it takes (0: store_true; 2: nargs=2). The actor.* and
 * critic.* optimiser flags are defined once for both, in the loop at lines 447-474.
 */
const OPENRLHF_FLAGS: Record<string, { line: number; values: number }> = {
  '--ref.num_gpus_per_node': { line: 201, values: 1 },
  '--actor.num_gpus_per_node': { line: 214, values: 1 },
  '--critic.num_gpus_per_node': { line: 216, values: 1 },
  '--train.colocate_all': { line: 224, values: 0 },
  '--vllm.num_engines': { line: 232, values: 1 },
  '--vllm.enable_sleep': { line: 245, values: 0 },
  '--vllm.gpu_memory_utilization': { line: 251, values: 1 },
  '--eval.steps': { line: 286, values: 1 },
  '--ds.enable_sleep': { line: 348, values: 0 },
  '--ckpt.output_dir': { line: 371, values: 1 },
  '--train.num_episodes': { line: 372, values: 1 },
  '--rollout.batch_size': { line: 373, values: 1 },
  '--train.max_epochs': { line: 378, values: 1 },
  '--data.max_len': { line: 379, values: 1 },
  '--actor.eps_clip': { line: 387, values: 1 },
  '--actor.dual_clip': { line: 389, values: 1 },
  '--critic.value_clip': { line: 390, values: 1 },
  '--algo.advantage.lambd': { line: 391, values: 1 },
  '--algo.advantage.gamma': { line: 392, values: 1 },
  '--train.batch_size': { line: 394, values: 1 },
  '--rollout.top_p': { line: 398, values: 1 },
  '--rollout.temperature': { line: 399, values: 1 },
  '--train.seed': { line: 400, values: 1 },
  '--rollout.n_samples_per_prompt': { line: 414, values: 1 },
  '--algo.kl.init_coef': { line: 419, values: 1 },
  '--algo.kl.estimator': { line: 422, values: 1 },
  '--actor.adam.lr': { line: 465, values: 1 },
  '--critic.adam.lr': { line: 465, values: 1 },
  '--actor.lr_scheduler': { line: 470, values: 1 },
  '--critic.lr_scheduler': { line: 470, values: 1 },
  '--actor.max_norm': { line: 474, values: 1 },
  '--algo.advantage.estimator': { line: 478, values: 1 },
  '--algo.kl.use_loss': { line: 485, values: 0 },
  '--actor.model_name_or_path': { line: 517, values: 1 },
  '--critic.model_name_or_path': { line: 520, values: 1 },
  '--train.agent_func_path': { line: 524, values: 1 },
  '--data.prompt_dataset': { line: 527, values: 1 },
  '--eval.dataset': { line: 535, values: 1 },
  '--eval.temperature': { line: 537, values: 1 },
  '--eval.n_samples_per_prompt': { line: 539, values: 1 },
  '--data.input_key': { line: 542, values: 1 },
  '--data.label_key': { line: 543, values: 1 },
  '--algo.dynamic_filtering_enable': { line: 562, values: 0 },
  '--algo.dynamic_filtering_range': { line: 565, values: 2 },
};

/** argv -> flag -> its values; an unknown flag or a wrong count of values is an error. */
function openrlhfFlags(argv: string[], errors: string[]): Map<string, string[]> {
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; ) {
    const flag = argv[i];
    const fact = OPENRLHF_FLAGS[flag];
    if (fact === undefined) {
      errors.push(`${flag} is not a flag of OpenRLHF 0.11.0's train_ppo_ray.py`);
      i++;
      continue;
    }
    const values = argv.slice(i + 1, i + 1 + fact.values);
    if (values.length !== fact.values || values.some((v) => v.startsWith('--'))) errors.push(`${flag} takes ${fact.values} values`);
    flags.set(flag, values);
    i += 1 + fact.values;
  }
  return flags;
}

/** What OpenRLHF 0.11.0 refuses, or runs out of memory with, for the arguments run.sh passed. */
function openrlhfStartErrors(argv: string[]): string[] {
  const errors: string[] = [];
  const f = openrlhfFlags(argv, errors);
  const num = (flag: string, fallback: number) => Number(f.get(flag)?.[0] ?? fallback);
  const n = num('--rollout.n_samples_per_prompt', 1);
  const estimator = f.get('--algo.advantage.estimator')?.[0] ?? 'gae';
  // train_ppo_ray.py:478-483 (choices) and 612-615: a group baseline needs more than one sample.
  if (!['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'].includes(estimator)) errors.push(`unknown estimator ${estimator}`);
  if (['rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'].includes(estimator) && n <= 1) errors.push(`${estimator} needs n_samples_per_prompt > 1`);
  // train_ppo_ray.py:422-425: k1, k2 or k3.
  if (!['k1', 'k2', 'k3'].includes(f.get('--algo.kl.estimator')?.[0] ?? 'k1')) errors.push('unknown kl estimator');
  // models/loss.py:147-148: dual_clip must be > 1.
  if (f.has('--actor.dual_clip') && !(num('--actor.dual_clip', 0) > 1)) errors.push('dual_clip must be > 1');
  // train_ppo_ray.py:700-709: the filter's range, a reward source, more than one sample.
  if (f.has('--algo.dynamic_filtering_enable')) {
    const [lo, hi] = (f.get('--algo.dynamic_filtering_range') ?? ['0', '1']).map(Number);
    if (!(lo < hi)) errors.push('dynamic_filtering_range must be increasing');
    if (!f.has('--train.agent_func_path')) errors.push('dynamic filtering needs an agent or a remote reward');
    if (n <= 1) errors.push('dynamic filtering needs n_samples_per_prompt > 1');
  }
  // train_ppo_ray.py:676-681: an eval set needs a reward source.
  if (f.has('--eval.dataset') && !f.has('--train.agent_func_path')) errors.push('--eval.dataset needs an agent');
  // train_ppo_ray.py:711-717 (rollout.micro_batch_size defaults to 1, line 377).
  if (n * num('--rollout.batch_size', 1024) < num('--actor.num_gpus_per_node', 8)) errors.push('fewer sample batches than actor processes');
  // Colocated, vLLM keeps its share (default 0.95, line 251) unless both sleep flags free the GPU for
  // the other side in turn: OpenRLHF's own hybrid-engine scripts pass all three
  // (examples/scripts/train_ppo_ray_hybrid_engine.sh:14-15 and 40-41; README.md:458-487).
  if (f.has('--train.colocate_all')) {
    for (const flag of ['--vllm.enable_sleep', '--ds.enable_sleep']) if (!f.has(flag)) errors.push(`--train.colocate_all without ${flag}`);
    if (!(num('--vllm.gpu_memory_utilization', 0.95) <= 0.5)) errors.push('--train.colocate_all with vLLM holding most of each GPU');
  }
  return errors;
}

const pythonFiles = Object.fromEntries(
  [...new Set([...PYTHON_FILES.verl, ...PYTHON_FILES.openrlhf])].map((name) => [name, readFileSync(join(PYTHON_SOURCES, name), 'utf8')]),
);
const root = mkdtempSync(join(tmpdir(), 'tir-engine-facts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Stand-ins for the installed engines: entry points that record their argv, and pip's dist-info. */
const SITE = join(root, 'site');
const RECORD_ARGV = 'import json, os, sys\njson.dump(sys.argv[1:], open(os.environ["TIR_ARGV_OUT"], "w"))\n';
write(join(SITE, 'verl', '__init__.py'), '__version__ = "0.6.1"\n');
write(join(SITE, 'verl', 'trainer', '__init__.py'), '');
write(join(SITE, 'verl', 'trainer', 'main_ppo.py'), RECORD_ARGV);
write(join(SITE, 'verl-0.6.1.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: verl\nVersion: 0.6.1\n');
write(join(SITE, 'openrlhf', '__init__.py'), '');
write(join(SITE, 'openrlhf', 'cli', '__init__.py'), '');
write(join(SITE, 'openrlhf', 'cli', 'train_ppo_ray.py'), RECORD_ARGV);
write(join(SITE, 'openrlhf-0.11.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: openrlhf\nVersion: 0.11.0\n');

const bundles = new Map<string, string>();
/** The bundle written once per engine, config and request. */
function bundleDir(engine: EngineName, config: ExperimentConfig, request: Partial<BundleRequest>): string {
  const key = JSON.stringify([engine, config, request]);
  const known = bundles.get(key);
  if (known !== undefined) return known;
  const dir = join(root, `bundle-${bundles.size}`);
  for (const [path, contents] of Object.entries(clusterBundle({ engine, config, model: 'Qwen/Qwen2.5-0.5B', trainSize: 4, source: 'facts', ...request }, pythonFiles))) {
    write(join(dir, path), contents);
  }
  bundles.set(key, dir);
  return dir;
}

let launches = 0;
/** Runs the bundle's run.sh; argv is what the engine's entry point received (null: it was not reached). */
function launch(engine: EngineName, config: ExperimentConfig, env: Record<string, string>, request: Partial<BundleRequest> = {}) {
  const dir = bundleDir(engine, config, request);
  const argvFile = join(root, `argv-${launches++}.json`);
  const run = spawnSync('bash', [join(dir, 'run.sh')], {
    encoding: 'utf8',
    // Debian's python3 first: a version manager's shim would add a second or so to every python3 run.sh starts.
    env: { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}`, PYTHONPATH: SITE, PYTHONDONTWRITEBYTECODE: '1', TIR_ALLOW_UNSANDBOXED: '1', TIR_ARGV_OUT: argvFile, ...env },
    timeout: 60_000,
  });
  let argv: string[] | null = null;
  try {
    argv = JSON.parse(readFileSync(argvFile, 'utf8')) as string[];
  } catch {
    argv = null;
  }
  return { status: run.status, stderr: run.stderr, argv };
}

function overrides(argv: string[]): Map<string, string> {
  return new Map(argv.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
}

const CLASSROOM = PRESETS.classroom;
const VARIANTS: [string, ExperimentConfig][] = [
  ['classroom (PPO, critic)', CLASSROOM],
  ['GRPO with a KL loss (reference policy)', { ...CLASSROOM, algorithm: 'grpo', klCoef: 0.01 }],
  ['Reinforce++, Nmax 0, ReTool tags', { ...CLASSROOM, algorithm: 'reinforce++', nmax: 0, format: 'retool' }],
  ['quick', PRESETS.quick],
  ['ablation', PRESETS.ablation],
];

describe('verl 0.6.1 starts with the bundle (d62da495)', () => {
  for (const [name, config] of VARIANTS) {
    it(`${name}: every key exists, no required setting is null, the batches divide, at 1 to 64 GPUs`, () => {
      for (const gpus of [1, 8, 64]) {
        if ((config.promptsPerStep * config.groupSize) % gpus !== 0 || (Math.max(1, Math.round(config.minibatchSize / config.groupSize)) * config.groupSize) % gpus !== 0) continue;
        const run = launch('verl', config, { GPUS: String(gpus) });
        expect(run.status, run.stderr).toBe(0);
        expect(verlStartErrors(overrides(run.argv!)), `GPUS=${gpus}`).toEqual([]);
      }
    });
  }

  it('derives the micro-batch from the GPU count, takes --micro-batch or MICRO_BATCH, and stops with the reason when they cannot work', () => {
    // classroom: 32 x 8 = 256 rollouts a step, mini-batches of 8 prompts x 8 = 64.
    const micro = (run: ReturnType<typeof launch>) => overrides(run.argv!).get('actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu');
    expect(micro(launch('verl', CLASSROOM, { GPUS: '8' }))).toBe('4');
    expect(micro(launch('verl', CLASSROOM, { GPUS: '32' }))).toBe('2');
    expect(micro(launch('verl', CLASSROOM, { GPUS: '64' }))).toBe('1');
    expect(micro(launch('verl', CLASSROOM, { GPUS: '8' }, { microBatchPerGpu: 8 }))).toBe('8');
    expect(micro(launch('verl', CLASSROOM, { GPUS: '8', MICRO_BATCH: '2' }, { microBatchPerGpu: 8 }))).toBe('2');
    const args = launch('verl', CLASSROOM, { GPUS: '8' }).argv!;
    for (const key of ['actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu', 'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu', 'critic.ppo_micro_batch_size_per_gpu']) {
      expect(overrides(args).get(key), key).toBe('4');
    }
    for (const [env, message] of [
      [{ GPUS: '3' }, /GPUS=3 does not divide both/],
      [{ GPUS: '128' }, /GPUS=128 does not divide both/],
      [{ GPUS: '8', MICRO_BATCH: '3' }, /MICRO_BATCH=3 must divide each GPU's share of a mini-batch \(8 sequences\)/],
    ] as const) {
      const run = launch('verl', CLASSROOM, env);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.argv).toBeNull();
    }
  });

  it('the check itself refuses a bundle that leaves a required setting null', () => {
    const args = overrides(launch('verl', CLASSROOM, { GPUS: '8' }).argv!);
    args.delete('actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu');
    args.delete('critic.ppo_micro_batch_size_per_gpu');
    args.set('actor_rollout_ref.rollout.max_turns', '2');
    expect(verlStartErrors(args)).toEqual([
      "actor_rollout_ref.rollout.max_turns is not a key of verl 0.6.1's ppo_trainer.yaml",
      'actor_rollout_ref.actor: set ppo_micro_batch_size_per_gpu (actor.py:136)',
      'critic: set ppo_micro_batch_size_per_gpu (critic.py:99)',
      'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=undefined does not divide the per-GPU mini-batch 8',
      'critic.ppo_micro_batch_size_per_gpu=undefined does not divide the per-GPU mini-batch 8',
    ]);
  });
});

describe('OpenRLHF 0.11.0 starts with the bundle (3c3be623)', () => {
  for (const [name, config] of VARIANTS) {
    it(`${name}: passes the version check, every flag exists with its values, nothing it asserts fails`, () => {
      const run = launch('openrlhf', config, { GPUS: '8' });
      expect(run.status, run.stderr).toBe(0);
      expect(openrlhfStartErrors(run.argv!)).toEqual([]);
    });
  }

  it('colocates with both sleep flags and half of each GPU for vLLM; maps the dual clip', () => {
    const argv = launch('openrlhf', CLASSROOM, { GPUS: '8' }).argv!;
    expect(argv).toEqual(expect.arrayContaining(['--train.colocate_all', '--vllm.enable_sleep', '--ds.enable_sleep', '--vllm.gpu_memory_utilization', '0.5']));
    expect(argv.slice(argv.indexOf('--actor.dual_clip'), argv.indexOf('--actor.dual_clip') + 2)).toEqual(['--actor.dual_clip', '3']);
    expect(launch('openrlhf', { ...CLASSROOM, dualClip: 0 }, { GPUS: '8' }).argv).not.toContain('--actor.dual_clip');
  });

  it('refuses another OpenRLHF version, read from the installed distribution', () => {
    const other = join(root, 'site-other');
    write(join(other, 'openrlhf', '__init__.py'), '');
    write(join(other, 'openrlhf-0.10.2.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: openrlhf\nVersion: 0.10.2\n');
    const run = launch('openrlhf', CLASSROOM, { GPUS: '8', PYTHONPATH: other });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('this bundle was written for openrlhf 0.11.0, found 0.10.2');
    expect(run.argv).toBeNull();
  });

  it('the check itself refuses colocation without the sleep flags, and unknown flags', () => {
    const argv = launch('openrlhf', CLASSROOM, { GPUS: '8' }).argv!.filter((a) => a !== '--ds.enable_sleep');
    expect(openrlhfStartErrors([...argv, '--actor.dual_clip_c', '3'])).toEqual([
      "--actor.dual_clip_c is not a flag of OpenRLHF 0.11.0's train_ppo_ray.py",
      "3 is not a flag of OpenRLHF 0.11.0's train_ppo_ray.py",
      '--train.colocate_all without --ds.enable_sleep',
    ]);
  });
});
