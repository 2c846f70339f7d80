/**
 * npm run train -- --nmax 0,2: the arms of an Nmax sweep in parallel processes (src/cli/nmaxArms.ts),
 * each giving the figures it gives alone.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { armArgv, nmaxArms } from '../src/cli/nmaxArms';

const run = promisify(execFile);
const out = mkdtempSync(join(tmpdir(), 'train-arms-'));
const TINY_RUN = ['--steps', '1', '--prompts-per-step', '1', '--group-size', '2', '--samples-per-step', '0', '--test-every', '1'];
const TRAIN = ['--import', 'tsx', 'src/cli/train.ts'];

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A run's metrics without the fields that time it. */
function figures(dir: string): unknown[] {
  return readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const { seconds: _seconds, tokensPerSecond: _rate, ...rest } = JSON.parse(line);
      return rest;
    });
}

describe('--nmax with several values', () => {
  it('is read as the arms, strictly; one value is an ordinary run', () => {
    expect(nmaxArms(['--seed', '1', '--nmax', '0,1,4'])).toEqual([0, 1, 4]);
    expect(nmaxArms(['--nmax=2,8'])).toEqual([2, 8]);
    expect(nmaxArms(['--nmax', '2'])).toBeNull();
    expect(nmaxArms(['--seed', '1'])).toBeNull();
    expect(() => nmaxArms(['--nmax', '0,0'])).toThrow('--nmax lists an arm twice: 0,0');
    expect(() => nmaxArms(['--nmax', '0,0x1'])).toThrow("--nmax needs a whole number from 0 to 16, got '0x1'");
    expect(() => nmaxArms(['--nmax', '1,17'])).toThrow("got '17'");
  });

  it("gives each arm the flags with its own Nmax and directory, and its share of the cores for its updates unless told", () => {
    expect(armArgv(['--seed', '3', '--nmax', '0,2', '--out', 'runs/s'], 2)).toEqual(['--seed', '3', '--nmax', '2', '--out', join('runs/s', 'nmax-2'), '--update-threads', '1']);
    expect(armArgv(['--nmax=0,2', '--steps', '5'], 0, 2)).toEqual(['--steps', '5', '--nmax', '0', '--out', join('runs', 'sweep', 'nmax-0'), '--update-threads', '2']);
    expect(armArgv(['--nmax', '0,2', '--update-threads', '3'], 0, 2)).toEqual(['--update-threads', '3', '--nmax', '0', '--out', join('runs', 'sweep', 'nmax-0')]);
    expect(armArgv(['--nmax', '0,2', '--update-threads=3'], 0, 2)).toEqual(['--update-threads=3', '--nmax', '0', '--out', join('runs', 'sweep', 'nmax-0')]);
  });

  it('trains the arms side by side, each with the figures it has alone', async () => {
    const sweep = join(out, 'sweep');
    const { stderr } = await run(process.execPath, [...TRAIN, ...TINY_RUN, '--nmax', '0,2', '--out', sweep]);
    expect(stderr).toContain('train: 2 Nmax arms (0, 2)');
    expect(stderr).toMatch(/\[nmax 0\] done: /);
    expect(stderr).toMatch(/\[nmax 2\] done: /);
    for (const nmax of [0, 2]) {
      expect(JSON.parse(readFileSync(join(sweep, `nmax-${nmax}`, 'summary.json'), 'utf8')).config.nmax).toBe(nmax);
    }
    const alone = join(out, 'alone');
    await run(process.execPath, [...TRAIN, ...TINY_RUN, '--nmax', '2', '--out', alone]);
    expect(figures(join(sweep, 'nmax-2'))).toEqual(figures(alone));
  }, 300_000);

  it('checks the other flags once, before any arm starts: one error and the usage (exit 2), or the help once (exit 0)', async () => {
    const usage = (text: string) => text.split('\n').filter((line) => line.startsWith('usage: npm run train')).length;
    for (const [args, error] of [
      [['--nmax', '0,1', '--steps', '1', '--out'], "train: Option '--out <value>' argument missing"],
      [['--nmax', '0,1', '--steps', 'abc', '--out', join(out, 'bad-steps')], "train: --steps needs a number, got 'abc'"],
      [['--nmax=0,1', '--resume', join(out, 'nowhere')], 'train: --resume continues the run with its own config: --nmax cannot come with it'],
    ] as const) {
      const failure = await run(process.execPath, [...TRAIN, ...args]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr.startsWith(`${error}\nusage: npm run train`)).toBe(true);
      expect(usage(failure!.stderr)).toBe(1);
      expect(failure?.stderr).not.toContain('Nmax arms');
    }
    const help = await run(process.execPath, [...TRAIN, '--nmax', '0,1', '--help']);
    expect(usage(help.stdout)).toBe(1);
    expect(help.stderr).toBe('');
    expect(existsSync(join(out, 'bad-steps'))).toBe(false);
  }, 60_000);

  it('refuses a bad list with the usage, exit 2, before any arm starts', async () => {
    const failure = await run(process.execPath, [...TRAIN, '--nmax', '0,0', '--out', join(out, 'refused')]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('--nmax lists an arm twice');
  }, 60_000);
});
