import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');

function runCli(script: string, args: string[]) {
  const done = spawnSync(TSX, [script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

describe('npm run eval / npm run sft arguments', () => {
  it('eval: a bad flag value is a usage error (exit 2) naming the flag', () => {
    const bad = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent', '--k', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--k needs a whole number from 1 to 256, got '0'/);
    expect(bad.stderr).toMatch(/usage: npm run eval/);
    const topP = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent', '--top-p', '1.5']);
    expect(topP.status).toBe(2);
    expect(topP.stderr).toMatch(/--top-p needs a number in \(0, 1\]/);
  }, 60_000);

  it('eval: a missing checkpoint exits 2 saying which file is missing', () => {
    const missing = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent-checkpoint']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent-checkpoint has no model.json/);
  }, 60_000);

  it('sft: --out is required and the format is checked', () => {
    expect(runCli('src/cli/sft.ts', []).stderr).toMatch(/--out DIR is required/);
    const format = runCli('src/cli/sft.ts', ['--out', '/tmp/x', '--format', 'json']);
    expect(format.status).toBe(2);
    expect(format.stderr).toMatch(/--format must be retool or zerotir, got 'json'/);
  }, 60_000);
});
