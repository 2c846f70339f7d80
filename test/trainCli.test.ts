/**
 * npm run train against a base checkpoint tuned on a tool format (the shipped ReTool cold start):
 * the run takes the checkpoint's format unless told otherwise, and refuses a contradicting --format.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

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

  it("trains in the checkpoint's format when none is given", async () => {
    const dir = join(out, 'inherited');
    await run(TSX, ['src/cli/train.ts', '--base', COLD_START, ...TINY_RUN, '--out', dir]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.config.format).toBe('retool');
    expect(summary.stepsCompleted).toBe(1);
  }, 120_000);
});
