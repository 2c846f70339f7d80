/**
 * The browser sandbox against a hostile corpus, in Debian Chromium, on the built app. Each hostile
 * run must end within its timeout + 2 s with a clear error type, and the next benign run must
 * print 42 without waiting for a cold start (the pool's warm standby replaces a killed worker).
 * Network attempts target a local trap server, which must see nothing. The isolation corpus
 * (test/sandboxIsolationCorpus.ts) runs here as it does in Node, and the lab served without its
 * headers must say so and run no Python.
 */
import { readdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { RunOptions } from '../src/core/sandbox/protocol';
import type { TimedRunResult } from './harness/sandbox';
import {
  attackNotRun,
  ISOLATION_ATTACKS,
  ISOLATION_ATTACK_TIMEOUT_MS,
  ISOLATION_MAX_OUTPUT_BYTES,
  ISOLATION_PROBES,
  ISOLATION_PROBE_TIMEOUT_MS,
  observed,
  resultFieldProblems,
} from '../test/sandboxIsolationCorpus';
import {
  DAMAGE_STDLIB,
  DEV_AND_PROC,
  GUARD_OFF,
  HOARD,
  IMPORT_FROM_STDLIB,
  INTERPRETER_KILLERS,
  INVALID_BYTES,
  LIST_DEV_AND_PROC,
  MANY_FILES,
  NEXT_INODE,
  POSING_ERROR,
  SET_TIMES,
  TIMES,
} from '../test/sandboxOutsideHeapCases';
import { startStaticServer } from './staticServer';
import { startTrapServer, type TrapServer } from './trapServer';

const HARNESS = '/e2e/harness/sandbox.html';
const TIMEOUT_MS = 1500;
const MAX_OUTPUT_BYTES = 4096;
/** The bar: a hostile run ends within its timeout + 2 s. */
const SLACK_MS = 2000;
/** A benign run right after a hostile one: no cold start (2-10 s here) on the caller's path. */
const FAST_MS = 250;
/** Removes the import guard (the first meta_path entry): what a determined escape does first. */
const BYPASS_GUARD = 'import sys\nsys.meta_path.pop(0)\n';
/** For runs that try many things at once; Pyodide's own modules take a while to import on a busy machine. */
const SLOW_RUN = { timeoutMs: 10_000 };
/** Python helper for runs that try many things: one line per attempt, "label: ErrorType: message". */
const ATTEMPT = `def attempt(label, action):
    try:
        action()
        print(label + ': reached')
    except Exception as error:
        print(label + ': ' + type(error).__name__ + ': ' + str(error)[:120].replace('\\n', ' '))
`;

let page: Page;
let trap: TrapServer;

async function openHarness(target: Page): Promise<void> {
  await target.goto(HARNESS);
  await target.waitForFunction(() => 'sandboxHarness' in window);
}

function run(code: string, options: Partial<RunOptions> = {}): Promise<TimedRunResult> {
  const settings = { timeoutMs: TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT_BYTES, ...options };
  return page.evaluate(([source, opts]) => window.sandboxHarness.run(source, opts), [code, settings] as const);
}

/** Runs hostile code, checks it was stopped the way `types` allows, then that the sandbox still serves fast. */
async function expectContained(code: string, types: string[]): Promise<TimedRunResult> {
  await page.evaluate(() => window.sandboxHarness.whenStandbyReady());
  const result = await run(code);
  expect(result.ok, JSON.stringify(result)).toBe(false);
  expect(types).toContain(result.error?.type);
  expect(result.wallMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  await expectServesFast();
  return result;
}

async function expectServesFast(): Promise<void> {
  const next = await run('print(6*7)');
  expect(next).toMatchObject({ ok: true, stdout: '42\n', timedOut: false });
  expect(next.wallMs).toBeLessThan(FAST_MS);
}

function recycledCount(): Promise<number> {
  return page.evaluate(() => window.sandboxHarness.stats().recycled);
}

test.describe('Python sandbox in Chromium', () => {
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async ({ browser }) => {
    trap = await startTrapServer();
    page = await browser.newPage();
    await openHarness(page);
    await page.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 1 } }));
  });

  test.afterAll(async () => {
    await page.evaluate(() => window.sandboxHarness.close());
    await page.close();
    await trap.close();
  });

  test('the harness page is cross-origin isolated', async () => {
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  });

  test('runs Python and reports errors with short tracebacks', async () => {
    expect(await run('print(6*7)')).toMatchObject({ ok: true, stdout: '42\n', stderr: '', truncated: false });
    const failed = await run('x = 1\n1/0');
    expect(failed.error?.type).toBe('ZeroDivisionError');
    expect(failed.error?.message).toContain('File "<exec>", line 2');
    expect(failed.error?.message).not.toMatch(/https?:|\/lib\/python|pyodide/);
  });

  // As test/sandboxMemorySnapshot.test.ts checks the Node factory: the state programs can see must
  // not tell a restored worker from a loaded one (the isolation corpus below probes restored ones too).
  test("a factory's later workers start from the first one's memory snapshot, and programs see the same state", async () => {
    const state = `import sys, os, random
print(sys.path, sorted(sys.modules) == sorted(set(sys.modules)), len(sys.modules), os.getcwd(), sorted(os.environ))
print(random.random(), hash('tirlab'), {3, 1, 2}, sys.getrecursionlimit())`;
    const check = await page.evaluate((code) => window.sandboxHarness.memorySnapshotCheck(code), state);
    console.log(`Python worker starts (ms): first two at once ${check.firstTwoStartMs.toFixed(0)}, restored ${check.thirdStartMs.toFixed(0)}, lone load ${check.loneStartMs.toFixed(0)}; runs (ms) ${JSON.stringify(check.runMs.map((pair) => pair.map(Math.round)))}`);
    expect(check.restored).toEqual([false, true, true, false]);
    expect(check.snapshotBytes[0]).toBeGreaterThan(16 * 2 ** 20);
    expect(check.snapshotBytes.slice(1)).toEqual([0, 0, 0]);
    expect(check.stdout[0]).toContain("['', '/lib/python314.zip'");
    expect(check.stdout.slice(1)).toEqual([check.stdout[0], check.stdout[0], check.stdout[0]]);
  });

  test('the worker script is served with a CSP without unsafe-eval', async ({ request }) => {
    // The build names the worker by content hash; which chunk refers to it depends on how pages share code.
    const workerPath = readdirSync('dist/assets').find((name) => /^python\.worker-[\w-]+\.js$/.test(name));
    expect(workerPath).toBeTruthy();
    const response = await request.get(`/assets/${workerPath}`);
    const csp = response.headers()['content-security-policy'];
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).not.toContain("'unsafe-eval'");
  });

  for (const code of [
    'import js',
    'import pyodide_js',
    'from pyodide.ffi import to_js',
    "__import__('js')",
    "import importlib\nimportlib.import_module('pyodide_js')",
    "import ctypes\nctypes.CDLL(None).emscripten_run_script(b'1')",
    'import socket',
    'import subprocess',
  ]) {
    test(`guard: ${code.split('\n').pop()}`, async () => {
      const result = await expectContained(code, ['ImportBlocked']);
      expect(result.error?.message).toContain('blocked in the sandbox');
    });
  }

  test('guard bypassed: no worker globals through js, and the CSP stops eval', async () => {
    const before = await recycledCount();
    const result = await run(
      BYPASS_GUARD +
        ATTEMPT +
        `import js, pyodide_js
for name in ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'postMessage', 'eval', 'Function', 'Object']:
    attempt('js.' + name, lambda: getattr(js, name))
attempt('Function', lambda: pyodide_js.constructor.constructor('return globalThis')())
def run_js():
    from pyodide.code import run_js
    run_js('1')
attempt('run_js', run_js)`,
      SLOW_RUN,
    );
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, 9)).toEqual(
      ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'postMessage', 'eval', 'Function', 'Object'].map(
        (name) => `js.${name}: AttributeError: ${name}`,
      ),
    );
    expect(lines[9]).toMatch(/^Function: JsException: EvalError: .*Content Security Policy/);
    expect(lines[10]).toBe("run_js: ImportError: cannot import name 'eval' from 'js' (unknown location)");
    // Past the guard, the interpreter is not reused.
    expect(await recycledCount()).toBe(before + 1);
    await page.evaluate(() => window.sandboxHarness.whenStandbyReady());
    await expectServesFast();
  });

  test('guard bypassed: ctypes reaching emscripten_run_script kills only that interpreter', async () => {
    const before = await recycledCount();
    const result = await expectContained(
      `${BYPASS_GUARD}import ctypes\nctypes.CDLL(None).emscripten_run_script(b'postMessage(1)')`,
      ['InterpreterDied'],
    );
    expect(result.error?.message).toContain('EvalError');
    expect(await recycledCount()).toBe(before + 1);
  });

  test('no request reaches a local server', async () => {
    // Control: the page itself can reach the trap, so silence from the sandbox means something.
    const control = await page.evaluate((url) => fetch(`${url}/control`).then((r) => r.text()), trap.url);
    expect(control).toBe('trap');
    const target = `${trap.url}/from-python`;
    await expectContained(`import urllib.request\nurllib.request.urlopen('${target}')`, ['ImportBlocked']);
    await expectContained(`import socket\nsocket.create_connection(('127.0.0.1', ${trap.port}))`, ['ImportBlocked']);

    await page.evaluate(() => window.sandboxHarness.whenStandbyReady());
    const bypassed = await run(
      BYPASS_GUARD +
        ATTEMPT +
        `def urlopen():
    import urllib.request
    urllib.request.urlopen('${target}')
attempt('urlopen', urlopen)
def connect():
    import socket
    socket.create_connection(('127.0.0.1', ${trap.port}))
attempt('socket', connect)
def open_url():
    from pyodide.http import open_url
    open_url('${target}')
attempt('open_url', open_url)`,
      SLOW_RUN,
    );
    expect(bypassed.stdout.trim().split('\n')).toEqual([
      'urlopen: URLError: <urlopen error [Errno 23] Host is unreachable>',
      'socket: OSError: [Errno 23] Host is unreachable',
      "open_url: NameError: name 'XMLHttpRequest' is not defined",
    ]);

    // Pyodide's own loaders fetch asynchronously, after the run returns. This run hides its bypass
    // (guard put back, modules dropped); it called into JavaScript, so its worker is replaced anyway,
    // and nothing it started may arrive afterwards either.
    await page.evaluate(() => window.sandboxHarness.whenStandbyReady());
    const recycled = await recycledCount();
    const hidden = await run(`import sys
guard = sys.meta_path.pop(0)
import pyodide_js
pyodide_js.loadPackage('${target}/x-1.0-py3-none-any.whl')
pyodide_js._api.loadBinaryFile('${target}/y')
del pyodide_js
for name in [name for name in sys.modules if name.split('.')[0] in ('js', 'pyodide_js', 'pyodide', '_pyodide')]:
    del sys.modules[name]
sys.meta_path.insert(0, guard)
print('sent')`, SLOW_RUN);
    expect(hidden).toMatchObject({ ok: true, stdout: 'sent\n' });
    expect(await recycledCount()).toBe(recycled + 1);
    await page.waitForTimeout(1500);
    await page.evaluate(() => window.sandboxHarness.whenStandbyReady());
    await expectServesFast();
    expect(trap.hits).toEqual(['GET /control']);
  });

  test('threads cannot start', async () => {
    await expectContained('import threading\nthreading.Thread(target=print, args=(1,)).start()', ['RuntimeError']);
  });

  test('while True: pass is interrupted and the interpreter survives', async () => {
    const before = await recycledCount();
    const result = await expectContained('while True: pass', ['Timeout']);
    expect(result.timedOut).toBe(true);
    expect(result.error?.message).toContain('interrupted');
    expect(await recycledCount()).toBe(before);
  });

  for (const code of [
    'import time\ntime.sleep(30)',
    'sum(range(10**11))',
    'while True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass',
  ]) {
    test(`killed after the grace: ${code.split('\n')[1] ?? code}`, async () => {
      const before = await recycledCount();
      const result = await expectContained(code, ['Timeout']);
      expect(result.timedOut).toBe(true);
      expect(result.error?.message).toContain('killed');
      expect(await recycledCount()).toBe(before + 1);
    });
  }

  test('memory bombs end in MemoryError', async () => {
    await expectContained("'a' * 10**9", ['MemoryError']);
    await expectContained('x = []\nwhile True:\n    x.append([0] * 10000)', ['MemoryError', 'Timeout']);
  });

  test('output floods stop at the byte cap', async () => {
    for (const code of ["print('x' * 50_000_000)", 'while True:\n    print(12345678)']) {
      const result = await expectContained(code, ['OutputLimit']);
      expect(result.truncated).toBe(true);
      expect(new TextEncoder().encode(result.stdout).length).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
      expect(result.stdout.length).toBeGreaterThan(MAX_OUTPUT_BYTES / 2);
    }
  });

  test('deep recursion is a RecursionError', async () => {
    await expectContained('def f(n):\n    return f(n + 1)\nf(0)', ['RecursionError']);
  });

  test('input() is blocked', async () => {
    await expectContained('input()', ['InputBlocked']);
  });

  test('files do not survive to the next run', async () => {
    const write = await run("open('/tmp/note.txt', 'w').write('secret')\nopen('note.txt', 'w').write('secret')\nprint('ok')");
    expect(write).toMatchObject({ ok: true, stdout: 'ok\n' });
    for (const path of ['/tmp/note.txt', 'note.txt']) {
      const read = await run(`print(open('${path}').read())`);
      expect(read.error?.type).toBe('FileNotFoundError');
    }
  });

  test('monkeypatched builtins and modules do not reach the next run', async () => {
    const patch = await run(
      "import builtins, math\nbuiltins.print = lambda *a, **k: None\nbuiltins.len = lambda x: 0\nmath.pi = 3\nglobals()['secret'] = 1",
    );
    expect(patch.ok).toBe(true);
    await expectServesFast();
    expect(await run('import math\nprint(len([1, 2]), math.pi)')).toMatchObject({ ok: true, stdout: '2 3.141592653589793\n' });
    expect((await run('print(secret)')).error?.type).toBe('NameError');
  });
});

// No silent weak mode: served without the headers of docs/hosting.md, model code does not run.
for (const hosting of [
  { name: 'a plain static server (no headers)', crossOriginIsolated: false, says: ['not cross-origin isolated', 'Content-Security-Policy is not in force'] },
  { name: 'cross-origin isolated, without the worker CSP', crossOriginIsolated: true, says: ['Content-Security-Policy is not in force'] },
]) {
  test(`served by ${hosting.name}: the lab shows a banner and runs no Python`, async ({ page: served }) => {
    const server = await startStaticServer('dist', { crossOriginIsolated: hosting.crossOriginIsolated });
    try {
      await served.goto(`${server.url}/`);
      const banner = served.getByTestId('sandbox-hosting-banner');
      await expect(banner).toBeVisible({ timeout: 30_000 });
      for (const words of hosting.says) await expect(banner).toContainText(words);
      if (hosting.crossOriginIsolated) await expect(banner).not.toContainText('not cross-origin isolated');

      await served.goto(`${server.url}${HARNESS}`);
      await served.waitForFunction(() => 'sandboxHarness' in window);
      const refused = await served.evaluate(() =>
        window.sandboxHarness.open({ pool: { size: 1, standby: 0 } }).then(
          () => 'started',
          (error: unknown) => String(error),
        ),
      );
      expect(refused).toContain('refusing to run Python');
      for (const words of hosting.says) expect(refused).toContain(words);
    } finally {
      await server.close();
    }
  });
}

test('served as docs/hosting.md says, the lab shows no hosting banner', async ({ page: app }) => {
  await app.goto('/');
  await expect(app.getByTestId('lab')).toBeVisible();
  // The probe answers in well under a second; give it time before looking for the absence.
  await app.waitForTimeout(3000);
  await expect(app.getByTestId('sandbox-hosting-banner')).toHaveCount(0);
});

test.describe('isolation between programs in Chromium (issue 12)', () => {
  test.describe.configure({ mode: 'serial' });
  let isolated: Page;
  let fresh: ReturnType<typeof observed>[];

  function runIn(code: string, timeoutMs: number): Promise<TimedRunResult> {
    const options = { timeoutMs, maxOutputBytes: ISOLATION_MAX_OUTPUT_BYTES };
    return isolated.evaluate(([source, opts]) => window.sandboxHarness.run(source, opts), [code, options] as const);
  }

  async function runChecked(code: string, timeoutMs: number): Promise<TimedRunResult> {
    const result = await runIn(code, timeoutMs);
    expect(resultFieldProblems(result, ISOLATION_MAX_OUTPUT_BYTES), JSON.stringify(result).slice(0, 500)).toEqual([]);
    return result;
  }

  async function probeAll(): Promise<ReturnType<typeof observed>[]> {
    const results = [];
    for (const probe of ISOLATION_PROBES) results.push(observed(await runChecked(probe.code, probe.timeoutMs ?? ISOLATION_PROBE_TIMEOUT_MS)));
    return results;
  }

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    isolated = await browser.newPage();
    await openHarness(isolated);
    await isolated.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 0 } }));
    fresh = await probeAll();
    await isolated.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 1 } }));
  });

  test.afterAll(async () => {
    await isolated.evaluate(() => window.sandboxHarness.close());
    await isolated.close();
  });

  test('the probes see what they should in a fresh pool', () => {
    expect(fresh[0].stdout).toBe('42\n');
    expect(fresh[4].errorType).toBe('ImportBlocked');
    expect(fresh[7]).toMatchObject({ errorType: 'OutputLimit', truncated: true, stderr: 'warn\n' });
    expect(fresh[8]).toMatchObject({ errorType: 'Timeout', timedOut: true });
  });

  for (const attack of ISOLATION_ATTACKS) {
    test(`${attack.category}: ${attack.name}`, async () => {
      await isolated.evaluate(() => window.sandboxHarness.whenStandbyReady());
      expect(attackNotRun(await runChecked(attack.code, ISOLATION_ATTACK_TIMEOUT_MS))).toBeNull();
      expect(await probeAll()).toEqual(fresh);
    });
  }

  test('memory: a run that reached JS arrays outside the heap is not reused', async () => {
    await isolated.evaluate(() => window.sandboxHarness.whenStandbyReady());
    const before = await isolated.evaluate(() => window.sandboxHarness.stats().recycled);
    const result = await runChecked(
      'import sys\nsys.meta_path.pop(0)\nimport pyodide_js\nA = pyodide_js._module.HEAP8.constructor\nkeep = [A.new(2**26).fill(1) for _ in range(4)]\nprint(len(keep))',
      ISOLATION_ATTACK_TIMEOUT_MS,
    );
    expect(result).toMatchObject({ ok: true, stdout: '4\n' });
    expect(await isolated.evaluate(() => window.sandboxHarness.stats().recycled)).toBe(before + 1);
    expect(await probeAll()).toEqual(fresh);
  });

  test('memory: files, which live in JS arrays, are capped per run', async () => {
    const result = await runChecked("f = open('/tmp/big', 'wb')\nfor i in range(100):\n    f.write(b'x' * 2**20)", ISOLATION_ATTACK_TIMEOUT_MS);
    expect(result.error?.message).toContain('No space left on device');
    expect(await probeAll()).toEqual(fresh);
  });
});

test.describe('nothing outside the heap outlives a program in Chromium (issue 25)', () => {
  test.describe.configure({ mode: 'serial' });
  let tab: Page;

  function runIn(code: string): Promise<TimedRunResult> {
    const options = { timeoutMs: ISOLATION_ATTACK_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT_BYTES };
    return tab.evaluate(([source, opts]) => window.sandboxHarness.run(source, opts), [code, options] as const);
  }

  async function runKept(code: string): Promise<{ result: TimedRunResult; kept: boolean }> {
    await tab.evaluate(() => window.sandboxHarness.whenStandbyReady());
    const before = await tab.evaluate(() => window.sandboxHarness.stats().recycled);
    const result = await runIn(code);
    expect(resultFieldProblems(result, MAX_OUTPUT_BYTES), JSON.stringify(result).slice(0, 500)).toEqual([]);
    return { result, kept: (await tab.evaluate(() => window.sandboxHarness.stats().recycled)) === before };
  }

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    tab = await browser.newPage();
    await openHarness(tab);
    await tab.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 1 } }));
  });

  test.afterAll(async () => {
    await tab.evaluate(() => window.sandboxHarness.close());
    await tab.close();
  });

  test('1. the stdlib zip is read-only, and modules not loaded at start still import', async () => {
    const { result, kept } = await runKept(DAMAGE_STDLIB);
    expect(result.stdout).toBe('Read-only file system\nRead-only file system\n');
    expect(kept).toBe(true);
    expect(await runIn(IMPORT_FROM_STDLIB)).toMatchObject({ ok: true, stdout: '4/3 0.25 2\n' });
  });

  test('2. the inode counter, the scratch times, /dev and /proc are as they were', async () => {
    const inode = (await runIn(NEXT_INODE)).stdout;
    const times = (await runIn(TIMES)).stdout;
    expect((await runKept(MANY_FILES)).kept).toBe(true);
    expect((await runKept(SET_TIMES)).result.stdout).toBe('Read-only file system\n');
    expect((await runKept(DEV_AND_PROC)).result.stdout).toBe('shm Read-only file system\nnull Read-only file system\nproc Read-only file system\n');
    expect((await runIn(NEXT_INODE)).stdout).toBe(inode);
    expect((await runIn(TIMES)).stdout).toBe(times);
    expect((await runIn(LIST_DEV_AND_PROC)).stdout).toBe("['tmp'] False ['self']\n");
  });

  test('3. memory is charged wherever a program can put it, and hoarding programs cannot grow the tab', async () => {
    await tab.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 0 }, interpreter: { fileBytesPerRun: 2 ** 20 } }));
    expect((await runIn(HOARD)).stdout).toBe(
      'first write No space left on device\npipe No space left on device\nsymlinks No space left on device\ndirectories No space left on device\nshm Read-only file system\n',
    );
    // With the default budget: each of these held 2 GiB before, and the tab died after 7 of them.
    await tab.evaluate(() => window.sandboxHarness.open({ pool: { size: 1, standby: 1 } }));
    const hoard = `${GUARD_OFF}import os
chunk = b'x' * 2**24
kept = 0
for i in range(64):
    try:
        open(f'/tmp/h{i}', 'wb').write(chunk)
        kept += 1
    except OSError:
        break
r, w = os.pipe()
try:
    for i in range(64):
        os.write(w, chunk)
except OSError:
    pass
print(kept)`;
    for (let i = 0; i < 10; i++) expect(await runIn(hoard)).toMatchObject({ ok: true, stdout: '3\n' });
    expect(await runIn('print(6*7)')).toMatchObject({ ok: true, stdout: '42\n' });
  });

  test('7. os._exit, os.umask and fcntl cost no worker; error types and the output cap are the host\'s', async () => {
    const outcomes = [];
    for (const code of INTERPRETER_KILLERS) {
      const { result, kept } = await runKept(code);
      outcomes.push([kept, result.ok, result.stdout, result.error?.type ?? null]);
    }
    expect(outcomes).toEqual([
      [true, true, 'bye\n', null],
      [true, false, '', 'SystemExit'],
      [true, true, '0 0\n', null],
      [true, true, 'True\n', null],
    ]);
    const posing = await runKept(POSING_ERROR);
    expect(posing.result.error?.type).toBe('Exception');
    expect(posing.kept).toBe(true);
    const invalid = await runIn(INVALID_BYTES);
    expect(new TextEncoder().encode(invalid.stdout).length).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(invalid).toMatchObject({ truncated: true, error: { type: 'OutputLimit' } });
  });
});

test('the app shell is served cross-origin isolated', async ({ page: app }) => {
  await app.goto('/');
  await expect(app).toHaveTitle('TIR Lab');
  expect(await app.evaluate(() => crossOriginIsolated)).toBe(true);
});

test('WebGPU has an adapter in this Chromium', async ({ page: gpu }) => {
  await openHarness(gpu);
  const check = await gpu.evaluate(() => window.sandboxHarness.webgpu());
  expect(check.adapter).toBe(true);
});

test('the sandbox works from inside a worker, as the trainer uses it', async ({ page: nested }) => {
  await openHarness(nested);
  const reply = await nested.evaluate(() =>
    window.sandboxHarness.runInWorker(['print(6*7)', 'while True: pass', 'print(6*7)'], { timeoutMs: 1000 }),
  );
  expect(reply.crossOriginIsolated).toBe(true);
  expect(reply.results.map((result) => [result.stdout, result.error?.type ?? null])).toEqual([
    ['42\n', null],
    ['', 'Timeout'],
    ['42\n', null],
  ]);
  // Interrupted (the shared buffer works in a nested worker), not killed.
  expect(reply.results[1].error?.message).toContain('interrupted');
});
