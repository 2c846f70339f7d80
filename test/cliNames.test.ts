/**
 * Names on the command line are looked up as the table's own properties: `in` and a plain index
 * also find Object.prototype's members, so `--format constructor` passed the check and reached
 * the run as Object itself. Each is a usage error (exit 2) naming the flag, before anything loads.
 */
import { describe, expect, it } from 'vitest';
import { cliFailure } from './cliFailure';

describe('names on the command line', () => {
  it("refuse Object.prototype's members: --format in eval and sft, --preset in export, --sizes in bench:browser", async () => {
    const cases: [string, string, string[], string][] = [
      ['eval', 'eval', ['--checkpoint', 'runs/none', '--format', 'constructor'], "--format must be zerotir or retool, got 'constructor'"],
      ['sft', 'sft', ['--base', 'runs/none', '--out', 'runs/none', '--format', 'toString'], "--format must be retool or zerotir, got 'toString'"],
      ['export', 'export', ['--engine', 'verl', '--preset', '__proto__', '--out', 'runs/none'], "unknown preset '__proto__' (known: classroom, no-tool, quick, retool, ablation)"],
      ['bench/benchBrowser', 'bench:browser', ['--sizes', 'wasm=constructor'], "--sizes takes BACKEND=full|medium|short pairs, got 'wasm=constructor'"],
    ];
    // One at a time: each loads tfjs, and side by side they crawl on a loaded machine.
    for (const [cli, name, args, message] of cases) {
      const failure = await cliFailure(cli, args);
      expect(failure?.code, `${cli} ${args.join(' ')}`).toBe(2);
      expect(failure?.stderr).toContain(`${name}: ${message}`);
    }
  }, 600_000);
});
