import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');
const out = mkdtempSync(join(tmpdir(), 'pretrain-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function pretrain(args: string[]) {
  return spawnSync(TSX, ['src/cli/pretrain.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('npm run pretrain arguments', () => {
  it('a bad --answer-line-share is a usage error (exit 2) naming the flag', () => {
    const bad = pretrain(['--answer-line-share', '1.5', '--out', join(out, 'bad')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--answer-line-share needs a number in \[0, 1\], got '1.5'/);
  }, 60_000);

  it('a --from checkpoint it cannot load is refused in one line (exit 2), not after 39 KB of minified source', () => {
    const from = join(out, 'cut');
    mkdirSync(from);
    // Without the shipped base's weights hash, which would catch the cut file first (test/trainCli.test.ts has both).
    const { weightsSha256: _hash, ...unhashed } = JSON.parse(readFileSync('public/models/base/model.json', 'utf8'));
    writeFileSync(join(from, 'model.json'), JSON.stringify(unhashed));
    writeFileSync(join(from, 'weights.bin'), readFileSync('public/models/base/weights.bin').subarray(0, 100));
    const cut = pretrain(['--from', from, '--out', join(out, 'from-cut')]);
    expect(cut.status).toBe(2);
    expect(cut.stderr).toBe(`pretrain: ${from}: checkpoint weights buffer has 100 bytes, too short for weight "wte"\n`);
  }, 60_000);

  it('saves --answer-line-share in the checkpoint recipe, and leaves it out when not given', () => {
    const recipe = (dir: string) => JSON.parse(readFileSync(join(out, dir, 'model.json'), 'utf8')).meta.pretrain.recipe;
    expect(pretrain(['--steps', '1', '--batch-size', '2', '--answer-line-share', '0.5', '--out', join(out, 'share')]).status).toBe(0);
    expect(recipe('share').answerLineShare).toBe(0.5);
    expect(pretrain(['--steps', '1', '--batch-size', '2', '--out', join(out, 'plain')]).status).toBe(0);
    expect(recipe('plain')).not.toHaveProperty('answerLineShare');
  }, 120_000);

  it('widens a --from model\'s context with --context-length, keeping its weights, and saves --search-tool-prior, --chain-stop-share, --error-prone-tool-prior and a five-share kind mix', () => {
    // A 256-token model like the stage-6 base: the same weights with the old context in its manifest.
    const narrow = join(out, 'narrow');
    mkdirSync(narrow);
    const manifest = JSON.parse(readFileSync('public/models/base/model.json', 'utf8'));
    writeFileSync(join(narrow, 'model.json'), JSON.stringify({ ...manifest, config: { ...manifest.config, contextLength: 256 } }));
    copyFileSync('public/models/base/weights.bin', join(narrow, 'weights.bin'));
    const tooLong = pretrain(['--from', narrow, '--row-length', '512', '--steps', '1', '--out', join(out, 'too-long')]);
    expect(tooLong.status).toBe(2);
    expect(tooLong.stderr).toBe("pretrain: --row-length 512 is longer than the model's context (256); widen it with --context-length\n");
    const narrower = pretrain(['--from', narrow, '--context-length', '128', '--steps', '1', '--out', join(out, 'narrower')]);
    expect(narrower.stderr).toBe("pretrain: --context-length 128 is below the --from model's context (256)\n");
    const fresh = pretrain(['--context-length', '512', '--steps', '1', '--out', join(out, 'fresh')]);
    expect(fresh.status).toBe(2);
    expect(fresh.stderr).toMatch(/--context-length widens a --from model/);
    const badShare = pretrain(['--chain-stop-share', '1.5', '--steps', '1', '--out', join(out, 'bad-share')]);
    expect(badShare.status).toBe(2);
    expect(badShare.stderr.split('\n')[0]).toBe("pretrain: --chain-stop-share needs a number in [0, 1], got '1.5'");

    const args = ['--from', narrow, '--context-length', '512', '--row-length', '512', '--steps', '1', '--batch-size', '2', '--search-tool-prior', '0.5', '--chain-stop-share', '0.8', '--error-prone-tool-prior', '0.3', '--kind-mix', '1,0,1,0,1'];
    const widened = pretrain([...args, '--lr', '1e-12', '--out', join(out, 'wide')]);
    expect(widened.status).toBe(0);
    const saved = JSON.parse(readFileSync(join(out, 'wide', 'model.json'), 'utf8'));
    expect(saved.config).toEqual({ ...manifest.config, contextLength: 512 });
    expect(saved.meta.pretrain.recipe.searchToolPrior).toBe(0.5);
    expect(saved.meta.pretrain.recipe.chainStopShare).toBe(0.8);
    expect(saved.meta.pretrain.recipe.errorProneToolPrior).toBe(0.3);
    expect(saved.meta.pretrain.recipe.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 1, errorProne: 0, multiStep: 1, chain: 0 });
    // At a rate of 1e-12 (warmed up from 0) one Adam step moves no float32 weight by more than its last bits.
    const before = new Float32Array(readFileSync(join(narrow, 'weights.bin')).buffer.slice(0));
    const after = new Float32Array(readFileSync(join(out, 'wide', 'weights.bin')).buffer.slice(0));
    expect(after.length).toBe(before.length);
    let largest = 0;
    for (let i = 0; i < before.length; i++) largest = Math.max(largest, Math.abs(after[i] - before[i]));
    expect(largest).toBeLessThan(1e-6);
  }, 120_000);
});
