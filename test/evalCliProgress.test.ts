/** npm run eval: an --out it cannot write is refused before the evaluation; the evaluation shows progress, then the table, then writes. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'eval-progress-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function evalCli(args: string[]) {
  const done = spawnSync(TSX, ['src/cli/eval.ts', '--checkpoint', 'public/models/base', '--nmax', '0', '--k', '1', ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

describe('npm run eval --out', () => {
  it('refuses a directory, or a path under a file, in one line (exit 2) before any sampling', () => {
    expect(evalCli(['--out', root])).toEqual({ status: 2, stdout: '', stderr: `eval: --out ${root} is a directory; give the report's file path\n` });
    const file = join(root, 'a-file');
    writeFileSync(file, 'kept');
    expect(evalCli(['--out', join(file, 'report.json')])).toEqual({
      status: 2,
      stdout: '',
      stderr: `eval: --out ${join(file, 'report.json')} cannot be written: ${file} is a file, not a directory\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('kept');
  }, 120_000);

  it('shows each chunk done with its ETA, then the table, then writes the report', () => {
    const out = join(root, 'nested', 'report.json');
    const { status, stderr } = evalCli(['--out', out]);
    expect(status, stderr).toBe(0);
    const lines = stderr.trimEnd().split('\n');
    // 592 problems at k 1: chunks of 64 answers, 10 of them, before and after each.
    for (let done = 0; done <= 10; done++) {
      const bar = `[${'='.repeat(2 * done)}${' '.repeat(20 - 2 * done)}]`;
      expect(lines[done]).toMatch(new RegExp(`^${bar.replace(/[[\]]/g, '\\$&')} ${done}/10 chunks \\| nmax 0: ${Math.min(64 * done, 592)}/592 problems \\| \\d+s elapsed, ETA (--|\\d+s)$`));
    }
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report).toMatchObject({ problems: 592, k: 1, blocks: [{ nmax: 0 }] });
    expect(lines[11]).toMatch(/^nmax {2}pass@1/);
    expect(lines[12].startsWith(`0     ${report.blocks[0]['pass@1'].toFixed(3)}`)).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^done: ${out} \\(\\d+s\\)$`));
  }, 120_000);

  it('puts the report on stdout when its file cannot be written after all (a full disk: /dev/full)', () => {
    const { status, stdout, stderr } = evalCli(['--out', '/dev/full']);
    expect(status).toBe(2);
    expect(stderr.trimEnd().split('\n').at(-1)).toBe('eval: cannot write /dev/full (ENOSPC): the report is on stdout instead');
    expect(JSON.parse(stdout)).toMatchObject({ problems: 592, k: 1, blocks: [{ nmax: 0 }] });
  }, 120_000);
});
