/**
 * Every CLI reads numbers strictly: `--steps 0x10` trained 16 steps, `--tier-mix 1e308,1e308,1e308`
 * was taken (its shares then all 0), a blank `--temperature` was 0, `--timeout-s 3000000` overflowed
 * bench:browser's timer. Each is a usage error (exit 2) naming the flag, before anything loads or runs.
 */
import { describe, expect, it } from 'vitest';
import { cliFailure } from './cliFailure';

describe('numbers on the command line', () => {
  // One per CLI and defect; the other flags go through the same decimalNumber (test/cliKnobFlags.test.ts).
  it('are refused unless written in decimal and finite, in train, pretrain, sft, eval and compare', async () => {
    const cases: [string, string[], string][] = [
      ['train', ['--steps', '0x10'], "--steps needs a number, got '0x10'"],
      ['train', ['--tier-mix', '1e308,1e308,1e308'], "--tier-mix shares add up past the largest number, got '1e308,1e308,1e308'"],
      ['train', ['--resume', 'runs/none', '--steps', '0x10'], "--steps needs a whole number from 0 to 100000, got '0x10'"],
      ['pretrain', ['--tool-prior', ''], "--tool-prior needs a number in [0, 1], got ''"],
      ['sft', ['--out', 'runs/none', '--steps', '0x10'], "--steps needs a positive whole number, got '0x10'"],
      ['eval', ['--checkpoint', 'runs/none', '--temperature', ''], "--temperature needs a number from 0 to 5, got ''"],
      ['compare', ['--target', '0x0', 'runs/none'], "--target needs a number from 0 to 1, got '0x0'"],
    ];
    // One at a time: eleven side by side, each loading tfjs, took over a minute on a loaded machine.
    for (const [cli, args, message] of cases) {
      const failure = await cliFailure(cli, args);
      expect(failure?.code, `${cli} ${args.join(' ')}`).toBe(2);
      expect(failure?.stderr).toContain(`${cli}: ${message}`);
    }
  }, 600_000);

  // A --timeout-s of 3000000 is 3e9 ms, past what a timer holds (2^31 - 1): it fired at once and stopped every backend.
  it('are refused in bench:browser unless decimal and within bounds: its timeout and its pool sizes', async () => {
    const cases: [string[], string][] = [
      [['--timeout-s', '3000000'], "--timeout-s needs a whole number from 1 to 86400, got '3000000'"],
      [['--timeout-s', '0x10'], "--timeout-s needs a whole number from 1 to 86400, got '0x10'"],
      [['--sandbox-pool', '0x2,1'], "--sandbox-pool takes SIZE,STANDBY, whole numbers from 1 and from 0 up to 99 (e.g. 2,1), got '0x2,1'"],
    ];
    for (const [args, message] of cases) {
      const failure = await cliFailure('bench/benchBrowser', args);
      expect(failure?.code, args.join(' ')).toBe(2);
      expect(failure?.stderr).toContain(`bench:browser: ${message}`);
    }
  }, 600_000);
});
