/**
 * npm run pretrain and npm run sft: a --out that already holds a model is refused before any work
 * unless --force replaces it; sft shows its trace generation and times its ETA by the training
 * steps; its answer cap is the one train and eval enforce.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'model-out-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cli(name: string, args: string[]) {
  const done = spawnSync(TSX, [`src/cli/${name}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

/** A directory holding a stand-in model and log, as an earlier run of `name` leaves it. */
function heldModel(dir: string, log: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.json'), '{"meta":{"kind":"earlier"}}');
  writeFileSync(join(dir, log), '{"step":1}\n{"step":2}\n');
}

describe('a --out that holds a model', () => {
  it('pretrain refuses it in one line (exit 2), touching nothing; --force replaces it', () => {
    const dir = join(root, 'pretrained');
    heldModel(dir, 'pretrain-log.jsonl');
    const refused = cli('pretrain', ['--steps', '1', '--batch-size', '2', '--out', dir]);
    expect(refused).toEqual({ status: 2, stdout: '', stderr: `pretrain: ${dir} already holds a model (model.json, pretrain-log.jsonl); pass --force to replace it, or another --out\n` });
    expect(readFileSync(join(dir, 'model.json'), 'utf8')).toBe('{"meta":{"kind":"earlier"}}');
    expect(readFileSync(join(dir, 'pretrain-log.jsonl'), 'utf8')).toBe('{"step":1}\n{"step":2}\n');
    const forced = cli('pretrain', ['--steps', '1', '--batch-size', '2', '--out', dir, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')).meta).toMatchObject({ kind: 'base', stepsCompleted: 1 });
    expect(readFileSync(join(dir, 'pretrain-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([1]);
  }, 120_000);

  it('sft refuses it in one line (exit 2), touching nothing; --force replaces it', () => {
    const dir = join(root, 'tuned');
    heldModel(dir, 'sft-log.jsonl');
    const refused = cli('sft', ['--steps', '1', '--traces', '8', '--out', dir]);
    expect(refused).toEqual({ status: 2, stdout: '', stderr: `sft: ${dir} already holds a model (model.json, sft-log.jsonl); pass --force to replace it, or another --out\n` });
    expect(readFileSync(join(dir, 'sft-log.jsonl'), 'utf8')).toBe('{"step":1}\n{"step":2}\n');
    const forced = cli('sft', ['--steps', '1', '--traces', '8', '--out', dir, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')).meta).toMatchObject({ kind: 'sft', sft: { traces: 8 } });
    expect(readFileSync(join(dir, 'traces.jsonl'), 'utf8').trim().split('\n')).toHaveLength(8);
  }, 120_000);
});

describe('npm run sft', () => {
  it('shows the traces kept batch by batch', () => {
    const { status, stderr } = cli('sft', ['--steps', '1', '--traces', '96', '--out', join(root, 'progress')]);
    expect(status, stderr).toBe(0);
    const lines = stderr.split('\n');
    // A line before the first batch of 32 drafts and after each.
    const kept = lines.filter((l) => l.includes('traces kept')).map((l) => l.match(/\] (\d+)\/96 traces kept \| (\d+) drafted/)!.slice(1).map(Number));
    expect(kept[0]).toEqual([0, 0]);
    expect(kept.map(([, drafted]) => drafted)).toEqual(kept.map((_, i) => 32 * i));
    expect(kept.at(-1)).toEqual([96, 32 * (kept.length - 1)]);
  }, 120_000);

  it('refuses --max-response-tokens past the 432 that train and eval enforce, before any work', () => {
    const { status, stderr } = cli('sft', ['--max-response-tokens', '436', '--out', join(root, 'long')]);
    expect(status).toBe(2);
    expect(stderr.split('\n')[0]).toBe("sft: --max-response-tokens needs a whole number from 8 to 432, got '436'");
  }, 60_000);
});
