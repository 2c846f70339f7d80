/**
 * Isolation between programs in the Node sandbox (issue 12): each attack of the corpus runs on a
 * shared pool, then every probe, and the probes must answer exactly as in a fresh pool. The host
 * (this process) must never see a malformed field, and memory past the child's cap, wherever it
 * lives, ends the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../src/core/sandbox/pool';
import type { RunResult } from '../src/core/sandbox/protocol';
import { nodeInterpreterFactory, type NodeInterpreterOptions } from '../src/node/sandbox/nodeInterpreter';
import {
  attackNotRun,
  ISOLATION_ATTACKS,
  ISOLATION_ATTACK_TIMEOUT_MS,
  ISOLATION_MAX_OUTPUT_BYTES,
  ISOLATION_PROBES,
  ISOLATION_PROBE_TIMEOUT_MS,
  observed,
  resultFieldProblems,
} from './sandboxIsolationCorpus';

// A longer kill grace than the default: on 2 loaded cores an interrupt sometimes lands late.
const INTERPRETER: NodeInterpreterOptions = { killGraceMs: 2500, rssLimitBytes: 1024 * 2 ** 20 };

let fresh: ReturnType<typeof observed>[];
let pool: SandboxPool;

async function runChecked(target: SandboxPool, code: string, timeoutMs: number): Promise<RunResult> {
  const result = await target.run(code, { timeoutMs, maxOutputBytes: ISOLATION_MAX_OUTPUT_BYTES });
  expect(resultFieldProblems(result, ISOLATION_MAX_OUTPUT_BYTES), JSON.stringify(result).slice(0, 500)).toEqual([]);
  return result;
}

async function probeAll(target: SandboxPool): Promise<ReturnType<typeof observed>[]> {
  const results = [];
  for (const probe of ISOLATION_PROBES) {
    results.push(observed(await runChecked(target, probe.code, probe.timeoutMs ?? ISOLATION_PROBE_TIMEOUT_MS)));
  }
  return results;
}

beforeAll(async () => {
  const alone = new SandboxPool(nodeInterpreterFactory(INTERPRETER), { size: 1, standby: 0 });
  fresh = await probeAll(alone);
  await alone.close();
  pool = new SandboxPool(nodeInterpreterFactory(INTERPRETER), { size: 1, standby: 1 });
  await pool.warmUp();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe('Node sandbox: no state survives from one program to the next', () => {
  it('the probes see what they should in a fresh pool', () => {
    const [arithmetic, modules, , files, blocked, write, error, output, timeout] = fresh;
    expect(arithmetic.stdout).toBe('42\n');
    expect(modules.stdout).toContain('3.141592653589793 4.0 a/b');
    expect(files.stdout).toMatch(/^\/home\/pyodide \[\] \[\] /);
    expect(blocked.errorType).toBe('ImportBlocked');
    expect(write.errorType).toBe('PermissionError');
    expect(error.errorType).toBe('ZeroDivisionError');
    expect(output).toMatchObject({ errorType: 'OutputLimit', truncated: true, stderr: 'warn\n' });
    expect(output.stdout.length + output.stderr.length).toBeLessThanOrEqual(ISOLATION_MAX_OUTPUT_BYTES);
    expect(timeout).toMatchObject({ errorType: 'Timeout', timedOut: true });
  });

  it('the same program draws the same random numbers on every run, in every interpreter', async () => {
    const draw = 'import random\nprint(random.random(), hash("tirlab"))';
    const first = await runChecked(pool, draw, ISOLATION_PROBE_TIMEOUT_MS);
    expect((await runChecked(pool, draw, ISOLATION_PROBE_TIMEOUT_MS)).stdout).toBe(first.stdout);
    expect(fresh[1].stdout).toContain(first.stdout.split(' ')[0]);
  });

  it('ordinary programs keep their interpreter: only a run that leaves a trace outside the heap costs one', async () => {
    await pool.warmUp();
    const recycled = pool.stats().recycled;
    for (const code of [
      'print("\u00e9, \U0001F600")',
      'import time\ntime.sleep(0.001)\nprint(time.time() > 0, time.localtime().tm_year > 2000)',
      'import os, tempfile\nfd, path = tempfile.mkstemp()\nos.write(fd, b"x")\nprint(len(os.urandom(4)), os.getcwd())',
      'import hashlib, zlib, decimal, fractions, statistics, datetime, unicodedata\nprint(decimal.Decimal(1) / 3, statistics.mean([1, 2]))',
      'x = [i * i for i in range(10**6)]\nprint(len(x), flush=True)',
      'raise ValueError("\u00e9")',
    ]) {
      await runChecked(pool, code, ISOLATION_PROBE_TIMEOUT_MS);
    }
    expect(pool.stats().recycled).toBe(recycled);
  });

  for (const attack of ISOLATION_ATTACKS) {
    it(`${attack.category}: ${attack.name}`, async () => {
      await pool.warmUp();
      expect(attackNotRun(await runChecked(pool, attack.code, ISOLATION_ATTACK_TIMEOUT_MS))).toBeNull();
      expect(await probeAll(pool)).toEqual(fresh);
    }, 60_000);
  }

  it('memory: JS arrays outside the wasm heap end the run at the process cap, and the next run is clean', async () => {
    await pool.warmUp();
    const recycled = pool.stats().recycled;
    const result = await runChecked(
      pool,
      'import sys\nsys.meta_path.pop(0)\nimport pyodide_js\nA = pyodide_js._module.HEAP8.constructor\nkeep = [A.new(2**26).fill(1) for _ in range(40)]',
      ISOLATION_ATTACK_TIMEOUT_MS,
    );
    expect(result.error?.type).toBe('MemoryError');
    expect(result.error?.message).toContain('memory cap of 1024 MiB');
    expect(pool.stats().recycled).toBe(recycled + 1);
    expect(await probeAll(pool)).toEqual(fresh);
  }, 60_000);

  it('memory: files, which live in JS arrays, are capped per run', async () => {
    const result = await runChecked(
      pool,
      "f = open('/tmp/big', 'wb')\nfor i in range(100):\n    f.write(b'x' * 2**20)",
      ISOLATION_ATTACK_TIMEOUT_MS,
    );
    expect(result.error?.type).toBe('OSError');
    expect(result.error?.message).toContain('No space left on device');
    expect(await probeAll(pool)).toEqual(fresh);
  }, 60_000);
});
