/**
 * The benchmark CLIs refuse a checkpoint they cannot load in one line (exit 2), as train, eval, sft
 * and pretrain do (issue 25, point 7): they loaded it outside runMain, so the refusal reached Node
 * through the wasm backend's uncaughtException handler, printed after that handler's 39 KB of
 * minified source.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliFailure } from './cliFailure';

const root = mkdtempSync(join(tmpdir(), 'tir-bench-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the benchmark CLIs', () => {
  it('refuse a cut checkpoint in one line: bench and bench:chunks', async () => {
    const dir = join(root, 'cut');
    mkdirSync(dir);
    copyFileSync('public/models/base/model.json', join(dir, 'model.json'));
    writeFileSync(join(dir, 'weights.bin'), readFileSync('public/models/base/weights.bin').subarray(0, 100));
    // One at a time: each loads tfjs, and side by side they crawl on a loaded machine.
    for (const [cli, name] of [['bench/bench', 'bench'], ['bench/benchChunks', 'bench:chunks']]) {
      const failure = await cliFailure(cli, ['--base', dir]);
      expect(failure?.code, cli).toBe(2);
      expect(failure?.stderr).toBe(`${name}: ${dir}: checkpoint weights buffer has 100 bytes, too short for weight "wte"\n`);
    }
  }, 300_000);
});
