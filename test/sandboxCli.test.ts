/** The sandbox CLI contract: one JSON line per file, exit 0 when the sandbox worked, 2 on bad input. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSandboxBenchFlags } from '../src/cli/bench/sandboxBenchFlags';

const TSX = join('node_modules', '.bin', 'tsx');

function cli(args: string[]) {
  const done = spawnSync(TSX, ['src/cli/sandbox.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

const USAGE = `usage: npm run --silent sandbox -- [--timeout MS] [--max-output BYTES] FILE.py...
  --timeout MS        a file's time limit (default 2000, 1..3600000)
  --max-output BYTES  output kept from a file (default 4096, 0..16777216)
`;

function pythonFiles(files: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'tirlab-sandbox-cli-'));
  return Object.fromEntries(
    Object.entries(files).map(([name, code]) => {
      const path = join(dir, name);
      writeFileSync(path, code);
      return [name, path];
    }),
  );
}

describe('npm run sandbox', () => {
  it('runs the files in order on one interpreter and prints one result per line', () => {
    const files = pythonFiles({
      'answer.py': 'import builtins\nbuiltins.answer = 41\nprint(6*7)\n',
      'error.py': 'print("before")\nx = 1/0\n',
      'loop.py': 'while True: pass\n',
      'flood.py': 'print("x" * 100)\n',
      'after.py': "import builtins\nprint(hasattr(builtins, 'answer'))\n",
    });
    const { status, stdout, stderr } = cli(['--timeout', '500', '--max-output', '10', ...Object.values(files)]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.file)).toEqual(Object.values(files));
    expect(lines[0]).toMatchObject({ ok: true, stdout: '42\n', stderr: '', timedOut: false, truncated: false });
    expect(lines[1]).toMatchObject({ ok: false, stdout: 'before\n', error: { type: 'ZeroDivisionError' } });
    expect(lines[1].error.message).toBe(
      'Traceback (most recent call last):\n  File "<exec>", line 2, in <module>\n    x = 1/0\nZeroDivisionError: division by zero',
    );
    expect(lines[2]).toMatchObject({ ok: false, timedOut: true, error: { type: 'Timeout' } });
    expect(lines[3]).toMatchObject({ ok: false, stdout: 'xxxxxxxxxx', truncated: true, error: { type: 'OutputLimit' } });
    expect(lines[4]).toMatchObject({ ok: true, stdout: 'False\n' });
    for (const line of lines) expect(line.durationMs).toBeGreaterThan(0);
  });

  it.each([
    [['--bogus', 'x.py'], 'unknown option --bogus'],
    [['--timeout', 'soon', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--max-output', '-1', 'x.py'], '--max-output needs an integer from 0 to 16777216'],
    // Issue 25: 3e9 ms overflowed the timer, which then killed every run at 1 ms; Number() took these.
    [['--timeout', '3000000000', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--timeout', '0x10', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--timeout', '1e3', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--timeout', ' 5', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--timeout', '', 'x.py'], '--timeout needs an integer from 1 to 3600000'],
    [['--timeout'], '--timeout needs an integer from 1 to 3600000'],
    [['--max-output', '99999999999', 'x.py'], '--max-output needs an integer from 0 to 16777216'],
    [[], 'no files given'],
    [['/nonexistent/missing.py'], 'cannot read /nonexistent/missing.py: ENOENT'],
  ])('exits 2 with usage for %j', (args, message) => {
    const { status, stdout, stderr } = cli(args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`sandbox: ${message}\n${USAGE}`);
  });

  it.each([['--help'], ['-h']])('%s prints the usage with the defaults on stdout, exit 0', (flag) => {
    expect(cli([flag])).toEqual({ status: 0, stdout: USAGE, stderr: '' });
  });

  it('takes --flag=value as the other CLIs do', () => {
    const files = pythonFiles({ 'flood.py': 'print("x" * 100)\n' });
    const { status, stdout } = cli(['--timeout=500', '--max-output=10', files['flood.py']]);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, stdout: 'xxxxxxxxxx', truncated: true, error: { type: 'OutputLimit' } });
  });
});

describe('the sandbox benchmarks\' count flags', () => {
  it('take positive integers in decimal digits', () => {
    expect(parseSandboxBenchFlags(['--warm-calls', '300', '--cold-starts', '2'])).toEqual({ warmCalls: 300, coldStarts: 2 });
  });

  it.each([['0x10'], ['1e3'], [' 5'], [''], ['0'], ['-3'], ['2.5'], ['9999999999']])('refuse %j', (value) => {
    expect(() => parseSandboxBenchFlags(['--warm-calls', value])).toThrow('bad argument --warm-calls');
  });

  it('refuse a name that is not one of theirs, inherited ones included', () => {
    expect(() => parseSandboxBenchFlags(['constructor', '3'])).toThrow('bad argument constructor');
    expect(() => parseSandboxBenchFlags(['--warm-calls'])).toThrow('bad argument --warm-calls');
  });
});
