/** npm run export: writes each engine's bundle from a preset or a run directory; bad flags exit 2. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'tir-export-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function exportCli(args: string[]) {
  return spawnSync(TSX, ['src/cli/export.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('npm run export', () => {
  it('writes the verl bundle from a preset with knob flags', () => {
    const out = join(root, 'verl');
    const run = exportCli(['--engine', 'verl', '--preset', 'quick', '--nmax', '1', '--algo', 'grpo', '--train-size', '50', '--model', 'Qwen/Qwen2.5-1.5B', '--micro-batch', '2', '--out', out]);
    expect(run.stderr).toMatch(/50 train, 160 test problems/);
    expect(run.status).toBe(0);
    for (const file of ['data/train.parquet', 'data/test.parquet', 'reward.py', 'tir_episode.py', 'tir_sandbox.py', 'verl_tool.py', 'verl_agent_loop.py', 'tool_config.yaml', 'agent_loop.yaml', 'run.sh', 'experiment.json', 'README.md']) {
      expect(existsSync(join(out, file)), file).toBe(true);
    }
    expect(statSync(join(out, 'run.sh')).mode & 0o111).not.toBe(0);
    const experiment = JSON.parse(readFileSync(join(out, 'experiment.json'), 'utf8'));
    expect(experiment).toMatchObject({ engine: 'verl', engineVersion: '0.6.1', source: 'quick', model: 'Qwen/Qwen2.5-1.5B', trainSize: 50, testSize: 160 });
    expect(experiment.config).toEqual({ ...PRESETS.quick, nmax: 1, algorithm: 'grpo' });
    const script = readFileSync(join(out, 'run.sh'), 'utf8');
    expect(script).toContain('MODEL="${MODEL:-Qwen/Qwen2.5-1.5B}"');
    expect(script).toContain('actor_rollout_ref.rollout.multi_turn.max_user_turns=1');
    expect(script).toContain('algorithm.adv_estimator=grpo');
    // --micro-batch is run.sh's default, which MICRO_BATCH overrides at launch.
    expect(script).toContain('MICRO_BATCH="${MICRO_BATCH:-2}"');
    expect(script).toContain('  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu="$MICRO_BATCH" \\');
  });

  it("writes the OpenRLHF bundle from a run directory's config", () => {
    const runDir = join(root, 'runs', 'cold-s3');
    mkdirSync(runDir, { recursive: true });
    const config = { ...PRESETS.classroom, seed: 3, format: 'retool', steps: 5 };
    writeFileSync(join(runDir, 'summary.json'), JSON.stringify({ config }));
    const out = join(root, 'openrlhf');
    const run = exportCli(['--engine', 'openrlhf', '--run', runDir, '--temperature', '1', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const experiment = JSON.parse(readFileSync(join(out, 'experiment.json'), 'utf8'));
    expect(experiment).toMatchObject({ engine: 'openrlhf', engineVersion: '0.11.0', source: 'cold-s3', trainSize: 5 * config.promptsPerStep });
    expect(experiment.config).toEqual({ ...config, temperature: 1 });
    expect(readFileSync(join(out, 'data/train.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5 * config.promptsPerStep);
    expect(JSON.parse(readFileSync(join(out, 'tir_config.json'), 'utf8')).format).toBe('retool');
    expect(readFileSync(join(out, 'run.sh'), 'utf8')).toContain('--rollout.temperature 1');
  });

  it('exits 2 with the usage on bad input', () => {
    const cases = [
      ['--engine', 'deepspeed', '--out', join(root, 'x')],
      ['--engine', 'verl'],
      ['--engine', 'verl', '--preset', 'classroom', '--run', root, '--out', join(root, 'x')],
      ['--engine', 'verl', '--run', join(root, 'nowhere'), '--out', join(root, 'x')],
      ['--engine', 'verl', '--nmax', '99', '--out', join(root, 'x')],
      ['--engine', 'verl', '--train-size', '0', '--out', join(root, 'x')],
      ['--engine', 'verl', '--frobnicate', '--out', join(root, 'x')],
      ['--engine', 'verl', '--micro-batch', '0', '--out', join(root, 'x')],
      ['--engine', 'verl', '--micro-batch', '1.5', '--out', join(root, 'x')],
      ['--engine', 'openrlhf', '--micro-batch', '2', '--out', join(root, 'x')],
    ];
    for (const args of cases) {
      const run = exportCli(args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/usage: npm run export/);
    }
    expect(existsSync(join(root, 'x'))).toBe(false);
  });
});
