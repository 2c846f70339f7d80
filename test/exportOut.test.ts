/**
 * npm run export's --out: refused in one line (exit 2) when it is a file or holds anything, unless
 * --force, which replaces an earlier bundle's files only; a mini-batch past a step's rollouts is the
 * step's, as in the lab, so verl starts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'export-out-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function exportCli(args: string[]) {
  const done = spawnSync(TSX, ['src/cli/export.ts', '--preset', 'quick', '--train-size', '10', ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: done.status, stderr: done.stderr };
}

describe('npm run export --out', () => {
  it('refuses a directory that holds anything without --force; --force swaps one engine bundle for the other, keeping other files', () => {
    const out = join(root, 'bundle');
    expect(exportCli(['--engine', 'verl', '--out', out]).status).toBe(0);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    const before = readFileSync(join(out, 'run.sh'), 'utf8');
    expect(exportCli(['--engine', 'openrlhf', '--out', out])).toEqual({
      status: 2,
      stderr: `export: --out ${out} is not empty; pass --force to replace the bundle in it, or give a new directory\n`,
    });
    expect(readFileSync(join(out, 'run.sh'), 'utf8')).toBe(before);
    expect(exportCli(['--engine', 'openrlhf', '--out', out, '--force']).status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['README.md', 'agent_func.py', 'data', 'experiment.json', 'notes.txt', 'reward.py', 'run.sh', 'tir_config.json', 'tir_episode.py', 'tir_sandbox.py']);
    expect(readdirSync(join(out, 'data')).sort()).toEqual(['test.jsonl', 'train.jsonl']);
    expect(JSON.parse(readFileSync(join(out, 'experiment.json'), 'utf8')).engine).toBe('openrlhf');
  }, 120_000);

  it('refuses a file, a path under a file, and a run whose summary.json is cut, in one line (exit 2)', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'kept');
    expect(exportCli(['--engine', 'verl', '--out', file])).toEqual({ status: 2, stderr: `export: --out ${file} is a file; give a directory\n` });
    expect(exportCli(['--engine', 'verl', '--out', join(file, 'x')])).toEqual({
      status: 2,
      stderr: `export: --out ${join(file, 'x')} cannot be made: ${file} is a file, not a directory\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('kept');
    const run = join(root, 'cut-run');
    mkdirSync(run);
    writeFileSync(join(run, 'summary.json'), '{"config":');
    const cut = spawnSync(TSX, ['src/cli/export.ts', '--engine', 'verl', '--run', run, '--out', join(root, 'from-cut')], { encoding: 'utf8', timeout: 120_000 });
    expect([cut.status, cut.stderr]).toEqual([2, `export: ${join(run, 'summary.json')} is not valid JSON (Unexpected end of JSON input)\n`]);
    expect(existsSync(join(root, 'from-cut'))).toBe(false);
  }, 120_000);
});

describe('npm run export --minibatch-size past a step', () => {
  it("maps the lab's mini-batch, a step's 64 rollouts, and says so", () => {
    const verl = exportCli(['--engine', 'verl', '--minibatch-size', '1000', '--out', join(root, 'mb-verl')]);
    expect(verl.status).toBe(0);
    expect(verl.stderr.split('\n')[0]).toBe(
      "export: note: --minibatch-size 1000 is more than a step's 64 rollouts; the lab learns from them all at once, so the bundle's mini-batch is 64",
    );
    const script = readFileSync(join(root, 'mb-verl', 'run.sh'), 'utf8');
    // quick: 8 prompts x 8; verl counts prompts, and refuses a mini-batch above train_batch_size.
    expect(script).toContain('data.train_batch_size=8');
    expect(script).toContain('actor_rollout_ref.actor.ppo_mini_batch_size=8');
    expect(script).toContain('MINI_ROLLOUTS=64');
    expect(exportCli(['--engine', 'openrlhf', '--minibatch-size', '1000', '--out', join(root, 'mb-openrlhf')]).status).toBe(0);
    expect(readFileSync(join(root, 'mb-openrlhf', 'run.sh'), 'utf8')).toContain('--train.batch_size 64');
  }, 120_000);
});
