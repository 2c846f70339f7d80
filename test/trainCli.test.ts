/**
 * npm run train against a base checkpoint tuned on a tool format (the shipped ReTool cold start):
 * the run takes the checkpoint's format unless told otherwise, and refuses a contradicting --format.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { metricsOf } from './runDirectoryFiles';

const run = promisify(execFile);
const TSX = join('node_modules', '.bin', 'tsx');
const COLD_START = 'public/models/coldstart';
const out = mkdtempSync(join(tmpdir(), 'train-cli-'));
const TINY_RUN = ['--steps', '1', '--prompts-per-step', '1', '--group-size', '2', '--samples-per-step', '0'];

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run train --base <a checkpoint tuned on a format>', () => {
  it('refuses a --format the checkpoint was not tuned on, with the reason, exit 2', async () => {
    const failure = await run(TSX, ['src/cli/train.ts', '--base', COLD_START, '--format', 'zerotir', ...TINY_RUN, '--out', join(out, 'refused')]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('was tuned on the retool format; --format zerotir would never see its code run');
  }, 60_000);

  it("trains in the checkpoint's format when none is given, and ends with a summary line", async () => {
    const dir = join(out, 'inherited');
    const { stderr } = await run(TSX, ['src/cli/train.ts', '--base', COLD_START, ...TINY_RUN, '--out', dir]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.config.format).toBe('retool');
    expect(summary.stepsCompleted).toBe(1);
    const last = stderr.trim().split('\n').at(-1);
    const test = (x: number) => x.toFixed(2);
    // formatDuration: "48s", or "1m08s" past a minute (the cold start's step-0 test of long answers, under load).
    // One step, a test every 10: the only held-out test is step 0's.
    expect(summary.finalTestAccuracy).toBe(summary.initialTestAccuracy);
    expect(last).toMatch(new RegExp(`^done: ${dir}, step 1/1 in (\\d+m)?\\d+s; held-out accuracy ${test(summary.initialTestAccuracy)} at step 0, no held-out test after it; last 10 steps: accuracy \\d\\.\\d\\d, code calls \\d\\.\\d\\d, length \\d+ tokens`));

    // The directory now holds a run: a second run there is refused, its files untouched, unless --force.
    const before = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');
    const again = await run(TSX, ['src/cli/train.ts', '--base', COLD_START, ...TINY_RUN, '--out', dir]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(again?.code).toBe(2);
    expect(again?.stderr).toContain(`train: ${dir} already holds a run (metrics.jsonl, samples.jsonl, summary.json, checkpoint); pass --force to replace it, --resume ${dir} to continue it, or another --out`);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(before);
  }, 120_000);

  it('refuses an --out that is a file, or below one, in one line before any work (exit 2)', async () => {
    const file = join(out, 'a-file');
    writeFileSync(file, 'not a run\n');
    for (const target of [file, join(file, 'run')]) {
      const failure = await run(TSX, ['src/cli/train.ts', ...TINY_RUN, '--out', target]).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr).toBe(`train: --out ${target} cannot be a run directory: ${file} is a file\n`);
    }
    expect(readFileSync(file, 'utf8')).toBe('not a run\n');
  }, 60_000);

  it('reads --nmax -3 as a number out of range, with the range in the message', async () => {
    const failure = await run(TSX, ['src/cli/train.ts', '--nmax', '-3', '--out', join(out, 'negative')]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('--nmax: nmax must be between 0 and 16');
    expect(failure?.stderr).not.toContain('ambiguous');
  }, 60_000);
});

/**
 * The quick preset cut down: 2 prompts x 4, every group kept (so every step updates), a held-out test
 * at steps 3 and 6, and a KL term, so that the start model is run and a resumed run's KL reference counts.
 */
const SMALL_QUICK = [
  '--preset', 'quick', '--seed', '3', '--prompts-per-step', '2', '--group-size', '4', '--minibatch-size', '8',
  '--max-response-tokens', '48', '--samples-per-step', '2', '--filter-low', '0', '--filter-high', '1', '--test-every', '3',
  '--kl-coef', '0.01',
];

function failureOf(args: string[]): Promise<{ code: number; stderr: string } | null> {
  return run(TSX, ['src/cli/train.ts', ...args]).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );
}

describe('npm run train --resume', () => {
  it('continues a run stopped at step 3 to step 6 exactly as a run never stopped, appending to its files', async () => {
    const stopped = join(out, 'stopped');
    const straight = join(out, 'straight');
    await run(TSX, ['src/cli/train.ts', ...SMALL_QUICK, '--steps', '3', '--out', stopped]);
    expect(metricsOf(stopped).map((m) => m.step)).toEqual([0, 1, 2, 3]);
    await run(TSX, ['src/cli/train.ts', '--resume', stopped, '--steps', '6']);
    await run(TSX, ['src/cli/train.ts', ...SMALL_QUICK, '--steps', '6', '--out', straight]);

    const resumed = metricsOf(stopped);
    expect(resumed.map((m) => m.step)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(resumed).toEqual(metricsOf(straight));
    // Steps 4-6 trained: the policy moved (KL to the start model) and the value head learned.
    expect(resumed.slice(4).every((m) => typeof m.kl === 'number' && m.kl !== 0 && m.valueLoss !== null)).toBe(true);
    expect(readFileSync(join(stopped, 'samples.jsonl'), 'utf8')).toBe(readFileSync(join(straight, 'samples.jsonl'), 'utf8'));
    expect(readFileSync(join(stopped, 'checkpoint', 'weights.bin')).equals(readFileSync(join(straight, 'checkpoint', 'weights.bin')))).toBe(true);
    const summary = JSON.parse(readFileSync(join(stopped, 'summary.json'), 'utf8'));
    expect(summary.stepsCompleted).toBe(6);
    expect(summary.config.steps).toBe(6);
    expect(summary.steps).toBe(6);

    const again = await failureOf(['--resume', stopped, '--steps', '6']);
    expect(again?.code).toBe(2);
    expect(again?.stderr).toContain("--steps 6 is not above the run's saved step 6");
    const done = await failureOf(['--resume', stopped]);
    expect(done?.stderr).toContain(`the run in ${stopped} has done its 6 steps; pass --steps N with N above 6 to continue it`);

    // A start model that is not the run's (here: its recorded fingerprint changed) is refused as KL reference.
    const manifestPath = join(stopped, 'checkpoint', 'model.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.trainer.reference.fingerprint = '0000000000000000';
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const otherStart = await failureOf(['--resume', stopped, '--steps', '7']);
    expect(otherStart?.code).toBe(2);
    expect(otherStart?.stderr).toContain('is not the one the run began from');
    expect(metricsOf(stopped)).toHaveLength(7);
  }, 240_000);

  it("refuses a cut checkpoint in one line, not after 39 KB of the wasm backend's minified source (exit 2)", async () => {
    const dir = join(out, 'cut');
    mkdirSync(join(dir, 'checkpoint'), { recursive: true });
    writeFileSync(join(dir, 'metrics.jsonl'), '');
    // Said to be cut whether or not the manifest records the weights' hash (the shipped base does;
    // a checkpoint saved before the hash does not): the hash alone would call it another save's.
    copyFileSync('public/models/base/model.json', join(dir, 'checkpoint', 'model.json'));
    writeFileSync(join(dir, 'checkpoint', 'weights.bin'), readFileSync('public/models/base/weights.bin').subarray(0, 100));
    const cutMessage = `train: ${join(dir, 'checkpoint')}: checkpoint weights buffer has 100 bytes, too short for weight "wte"\n`;
    const hashed = await failureOf(['--resume', dir]);
    expect(hashed?.code).toBe(2);
    expect(hashed?.stderr).toBe(cutMessage);
    const { weightsSha256: _hash, ...unhashed } = JSON.parse(readFileSync('public/models/base/model.json', 'utf8'));
    writeFileSync(join(dir, 'checkpoint', 'model.json'), JSON.stringify(unhashed));
    const cut = await failureOf(['--resume', dir]);
    expect(cut?.code).toBe(2);
    expect(cut?.stderr).toBe(cutMessage);
  }, 60_000);

  it('refuses a directory that is not a run, and knobs beside --resume', async () => {
    const notRun = await failureOf(['--resume', join(out, 'nowhere')]);
    expect(notRun?.code).toBe(2);
    expect(notRun?.stderr).toContain(`${join(out, 'nowhere')} is not a run directory of npm run train: it has no ${join(out, 'nowhere', 'checkpoint', 'model.json')}`);
    const knob = await failureOf(['--resume', join(out, 'nowhere'), '--nmax', '1']);
    expect(knob?.code).toBe(2);
    expect(knob?.stderr).toContain('--resume continues the run with its own config: --nmax cannot come with it');
  }, 60_000);
});

describe('npm run train --update-threads', () => {
  it('shares each update with gradient threads and gives the run of one thread, field for field and weight for weight', async () => {
    // Rows of many lengths (answers up to 96 tokens, with and without tool output) cut into several chunks.
    const knobs = [...SMALL_QUICK, '--prompts-per-step', '4', '--group-size', '8', '--minibatch-size', '32', '--max-response-tokens', '96', '--steps', '2'];
    const one = join(out, 'threads-1');
    const two = join(out, 'threads-2');
    const alone = await run(TSX, ['src/cli/train.ts', ...knobs, '--update-threads', '1', '--out', one]);
    const shared = await run(TSX, ['src/cli/train.ts', ...knobs, '--update-threads', '2', '--out', two]);
    expect(alone.stderr).not.toContain('gradient threads');
    expect(shared.stderr).toMatch(/updates on 2 threads: the gradient threads computed [1-9]\d* chunks/);
    expect(metricsOf(two)).toEqual(metricsOf(one));
    expect(readFileSync(join(two, 'checkpoint', 'weights.bin')).equals(readFileSync(join(one, 'checkpoint', 'weights.bin')))).toBe(true);
  }, 120_000);

  it('refuses a thread count out of its range, with the range', async () => {
    const failure = await failureOf(['--update-threads', '0', '--out', join(out, 'no-threads')]);
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("--update-threads needs a whole number from 1 to 16, got '0'");
  }, 60_000);
});
