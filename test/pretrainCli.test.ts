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
    copyFileSync('public/models/base/model.json', join(from, 'model.json'));
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
});
