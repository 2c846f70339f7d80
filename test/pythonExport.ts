/**
 * Runs a Python snippet against the exported Python files (python/) with Debian's python3: JSON in
 * on stdin, JSON out on stdout. No bytecode is written into the source tree.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export const PYTHON_SOURCES = resolve('python');

export function runPython<T>(script: string, input: unknown, extraEnv: Record<string, string> = {}): T {
  const prelude = `import json, sys\nsys.path.insert(0, ${JSON.stringify(PYTHON_SOURCES)})\n`;
  const run = spawnSync('python3', ['-c', prelude + script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1', ...extraEnv },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`python3 failed (${run.status}): ${run.stderr || run.error?.message}`);
  return JSON.parse(run.stdout) as T;
}
