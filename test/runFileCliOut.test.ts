/**
 * npm run runfile: pack's --out is checked before the run is read (a directory, a path under a
 * file, an existing file without --force), a missing folder is made, and unpack names a directory
 * or an eval report for what it is: each refusal one line, exit 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'runfile-out-'));
const run = join(root, 'run');
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(() => {
  const trained = spawnSync(TSX, ['src/cli/train.ts', '--preset', 'quick', '--steps', '1', '--test-every', '100', '--out', run], { encoding: 'utf8', timeout: 180_000 });
  if (trained.status !== 0) throw new Error(trained.stderr);
}, 180_000);

function runFile(args: string[]) {
  const done = spawnSync(TSX, ['src/cli/runFile.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: done.status, stderr: done.stderr };
}

describe('npm run runfile pack --out', () => {
  it('refuses a directory and a path under a file', () => {
    expect(runFile(['pack', run, '--out', root])).toEqual({ status: 2, stderr: `runfile: --out ${root} is a directory; give the run file's path\n` });
    const file = join(root, 'a-file');
    writeFileSync(file, 'kept');
    expect(runFile(['pack', run, '--out', join(file, 'run.json')])).toEqual({
      status: 2,
      stderr: `runfile: --out ${join(file, 'run.json')} cannot be written: ${file} is a file, not a directory\n`,
    });
  }, 60_000);

  it("refuses an existing file (a run's own metrics) unless --force, and makes a missing folder", () => {
    const metrics = join(run, 'metrics.jsonl');
    const before = readFileSync(metrics, 'utf8');
    expect(runFile(['pack', run, '--out', metrics])).toEqual({ status: 2, stderr: `runfile: --out ${metrics} already exists; pass --force to replace it, or another --out\n` });
    expect(readFileSync(metrics, 'utf8')).toBe(before);
    const nested = join(root, 'new', 'folder', 'run.json');
    expect(runFile(['pack', run, '--out', nested]).status).toBe(0);
    const packed = JSON.parse(readFileSync(nested, 'utf8'));
    expect(packed).toMatchObject({ format: 'tir-lab-run', formatVersion: 2, checkpoint: { step: 1 } });
    writeFileSync(join(root, 'old.json'), 'an older file');
    expect(runFile(['pack', run, '--out', join(root, 'old.json'), '--force']).status).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'old.json'), 'utf8')).metrics).toEqual(packed.metrics);
  }, 60_000);
});

describe('npm run runfile unpack', () => {
  it('names a directory, and an eval report, for what they are', () => {
    expect(runFile(['unpack', run, '--out', join(root, 'x')])).toEqual({ status: 2, stderr: `runfile: ${run} is a directory, not a run file\n` });
    const report = join(root, 'eval.json');
    writeFileSync(report, JSON.stringify({ checkpoint: 'c', format: 'zerotir', problems: 592, k: 1, blocks: [{ nmax: 0, 'pass@1': 0.05 }] }));
    expect(runFile(['unpack', report, '--out', join(root, 'x')])).toEqual({
      status: 2,
      stderr: `runfile: ${report} is an evaluation report of npm run eval, not a run file (the lab's Export run writes those)\n`,
    });
  }, 60_000);
});
