/**
 * The hostile corpus against the Node sandbox (Pyodide in a child process under the permission
 * model), through one shared SandboxPool as the trainer uses it. Each case asserts containment,
 * a clear error type, an end within timeout + 2 s, and that the next benign run is correct and fast.
 * Cases "past the guard" first remove the Python import guard, as an attacker would, to show that
 * the boundary (the child process) holds on its own; most also cover their tracks in Python, which
 * no longer keeps their interpreter: a run that called into JavaScript is recycled (every recycle
 * costs a cold start of the standby, the bulk of this file's time).
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../src/core/sandbox/pool';
import type { RunResult } from '../src/core/sandbox/protocol';
import { childNodeArgs, defaultPyodideDir, nodeInterpreterFactory } from '../src/node/sandbox/nodeInterpreter';

const TIMEOUT_MS = 1000;
const KILL_GRACE_MS = 2500;
const FAST_MS = 1000; // a warm run; a cold start takes 1.5-5 s on this machine
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAST_THE_GUARD = `import sys
sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, '__name__', '') != 'ImportGuard']
`;

/**
 * Code past the guard that also covers its tracks (guard put back, its imports forgotten), so that
 * nothing in Python shows the bypass and only the defences outside Python are left.
 */
function pastTheGuardQuietly(body: string): string {
  const indented = body.replace(/^/gm, '    ');
  return `import sys
guard, before = sys.meta_path.pop(0), set(sys.modules)
try:
${indented}
finally:
    sys.meta_path.insert(0, guard)
    for name in set(sys.modules) - before:
        del sys.modules[name]
`;
}

const TRAP_FILE = `/tmp/tirlab-pwned-${process.pid}`;

let pool: SandboxPool;
let trap: Server;
let trapPort = 0;
let trapConnections = 0;

beforeAll(async () => {
  rmSync(TRAP_FILE, { force: true });
  trap = createServer((socket) => {
    trapConnections++;
    socket.destroy();
  });
  await new Promise<void>((done) => trap.listen(0, '127.0.0.1', done));
  trapPort = (trap.address() as { port: number }).port;
  // A smaller heap than the default keeps the memory bombs quick on a loaded machine. A longer kill
  // grace than the default 500 ms: with the test files running in parallel on 2 cores, an interrupt
  // sometimes took longer than that to land, and the child was killed instead.
  const factory = nodeInterpreterFactory({ heapLimitBytes: 256 * 2 ** 20, recycleHeapBytes: 128 * 2 ** 20, killGraceMs: KILL_GRACE_MS });
  pool = new SandboxPool(factory, { size: 1, standby: 1 });
  await pool.warmUp();
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await new Promise((done) => trap?.close(done));
  expect(trapConnections).toBe(0);
  expect(existsSync(TRAP_FILE)).toBe(false);
});

/** Runs with a warm slot and standby, so the wall time is the run's own. */
async function hostile(code: string, timeoutMs = TIMEOUT_MS): Promise<RunResult> {
  await pool.warmUp();
  const started = performance.now();
  const result = await pool.run(code, { timeoutMs, maxOutputBytes: 4096 });
  // Killed at the latest at the timeout plus the grace; 1.5 s more for a loaded machine.
  expect(performance.now() - started).toBeLessThan(timeoutMs + KILL_GRACE_MS + 1500);
  expect(result.ok).toBe(false);
  return result;
}

async function expectNextRunWorks(): Promise<void> {
  const started = performance.now();
  const result = await pool.run('print(6*7)', { timeoutMs: TIMEOUT_MS });
  expect(result).toMatchObject({ ok: true, stdout: '42\n', stderr: '', timedOut: false });
  expect(performance.now() - started).toBeLessThan(FAST_MS);
}

async function expectBlocked(code: string, type: string, timeoutMs = TIMEOUT_MS): Promise<RunResult> {
  const result = await hostile(code, timeoutMs);
  expect(result.error?.type).toBe(type);
  await expectNextRunWorks();
  return result;
}

describe('Node sandbox: the boundary', () => {
  it('starts children that may read only Pyodide and their own scripts, and nothing more', () => {
    const args = childNodeArgs(defaultPyodideDir());
    expect(args).toContain('--experimental-permission');
    expect(args).toContain('--disallow-code-generation-from-strings');
    expect(args.filter((a) => a.startsWith('--allow-'))).toEqual([
      expect.stringMatching(/node_modules\/pyodide\/\*$/),
      expect.stringMatching(/src\/node\/sandbox\/child\.mjs$/),
      expect.stringMatching(/src\/node\/sandbox\/pyodideThread\.mjs$/),
      expect.stringMatching(/src\/core\/sandbox\/interpreterIsolation\.mjs$/),
      '--allow-worker',
    ]);
  });
});

describe('Node sandbox: hostile corpus', () => {
  it('blocks import js / pyodide_js / pyodide.ffi, __import__ and importlib', async () => {
    await expectBlocked('import js\nprint(js.process.pid)', 'ImportBlocked');
    await expectBlocked('import pyodide_js', 'ImportBlocked');
    await expectBlocked('from pyodide.ffi import to_js', 'ImportBlocked');
    await expectBlocked('__import__("js")', 'ImportBlocked');
    const viaImportlib = await expectBlocked('import importlib\nimportlib.import_module("pyodide_js")', 'ImportBlocked');
    expect(viaImportlib.error?.message).toContain(`import of 'pyodide_js' is blocked`);
  });

  it('gives code past the guard a js module without process, and no eval', async () => {
    await pool.warmUp();
    const recycled = pool.stats().recycled;
    const js = await expectBlocked(`${PAST_THE_GUARD}import js\njs.process.mainModule.require('fs')`, 'AttributeError');
    expect(js.error?.message).toContain('process');
    expect(pool.stats().recycled).toBe(recycled + 1); // a run seen past the guard is not trusted again
    const evalResult = await expectBlocked(
      pastTheGuardQuietly("import pyodide_js\npyodide_js.constructor.constructor('return process')()"),
      'JsException',
    );
    expect(evalResult.error?.message).toContain('Code generation from strings disallowed');
    // Covering its tracks in Python does not help: the run called into JavaScript, so it is replaced.
    expect(pool.stats().recycled).toBe(recycled + 2);
  });

  it('keeps host files out of reach: no host mount, only the virtual file system', async () => {
    // Under /tmp, where the mount point can be made (outside it, the file system is read-only first).
    const mount = await expectBlocked(
      pastTheGuardQuietly(`import pyodide_js\npyodide_js.mountNodeFS('/tmp/mnt', ${JSON.stringify(REPO)})`),
      'JsException',
    );
    expect(mount.error?.message).toContain('does not exist'); // the permission model denies the lstat
    // That interpreter reached JavaScript and was replaced: not even the empty mount point is left.
    const listing = await pool.run('import os\nprint(sorted(os.listdir("/")), os.listdir("/tmp"))');
    expect(listing.stdout).toBe("['dev', 'home', 'lib', 'proc', 'tmp'] []\n");
  });

  it('contains ctypes: blocked, and emscripten_run_script past the guard kills only the interpreter', async () => {
    await expectBlocked('import ctypes', 'ImportBlocked');
    const recycled = pool.stats().recycled;
    const script = `require('fs').writeFileSync('${TRAP_FILE}', 'x')`;
    const result = await expectBlocked(
      `${PAST_THE_GUARD}import ctypes\nctypes.CDLL(None).emscripten_run_script(${JSON.stringify(script)}.encode())`,
      'InterpreterDied',
    );
    expect(result.error?.message).toContain('Code generation from strings disallowed');
    expect(pool.stats().recycled).toBe(recycled + 1);
    expect(existsSync(TRAP_FILE)).toBe(false);
  });

  it('blocks sockets and urllib, and no connection reaches 127.0.0.1 past the guard', async () => {
    await expectBlocked(`import socket\nsocket.create_connection(('127.0.0.1', ${trapPort}))`, 'ImportBlocked');
    await expectBlocked(`import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${trapPort}/')`, 'ImportBlocked');
    await expectBlocked(pastTheGuardQuietly(`import socket\nsocket.create_connection(('127.0.0.1', ${trapPort}))`), 'OSError');
    // Pyodide's Node socket layer opens real TCP connections; the child's network is switched off.
    await pool.warmUp();
    const recycled = pool.stats().recycled;
    const install = await pool.run(pastTheGuardQuietly('import pyodide_js\npyodide_js.useNodeSockFS()'));
    expect(install.ok).toBe(true);
    expect(pool.stats().recycled).toBe(recycled + 1); // it called into JavaScript: not reused
    await hostile(pastTheGuardQuietly(`import socket\nsocket.create_connection(('127.0.0.1', ${trapPort}))`));
    await expectNextRunWorks();
    expect(pool.stats().recycled).toBe(recycled + 2);
    expect(trapConnections).toBe(0);
  });

  it('refuses os.system, and past the guard the permission model refuses the process', async () => {
    const result = await expectBlocked(`import os\nos.system('touch ${TRAP_FILE}')`, 'PermissionError');
    expect(result.error?.message).toContain('os.system is not available');
    const recycled = pool.stats().recycled;
    await expectBlocked(
      pastTheGuardQuietly(`import pyodide_js\npyodide_js._module.ccall('system', 'number', ['string'], ['touch ${TRAP_FILE}'])`),
      'JsException',
    );
    expect(pool.stats().recycled).toBe(recycled + 1);
    expect(existsSync(TRAP_FILE)).toBe(false);
  });

  it('blocks subprocess, and refuses to spawn past the guard', async () => {
    await expectBlocked(`import subprocess\nsubprocess.run(['touch', '${TRAP_FILE}'])`, 'ImportBlocked');
    const spawn = await expectBlocked(pastTheGuardQuietly(`import subprocess\nsubprocess.run(['touch', '${TRAP_FILE}'])`), 'OSError');
    expect(spawn.error?.message).toContain('emscripten does not support processes');
    expect(existsSync(TRAP_FILE)).toBe(false);
  });

  it('cannot start threads', async () => {
    const result = await expectBlocked('import threading\nthreading.Thread(target=print).start()', 'RuntimeError');
    expect(result.error?.message).toContain("can't start new thread");
  });

  it('interrupts while True: pass at the timeout and keeps the interpreter', async () => {
    const recycled = pool.stats().recycled;
    const result = await expectBlocked('while True: pass', 'Timeout');
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(pool.stats().recycled).toBe(recycled);
  });

  it("interrupts 30 tight loops in a row, none killed: no interrupt is lost in Pyodide's check", async () => {
    // Pyodide's check reads the buffer, then clears it; an interrupt stored between the two was
    // lost about once in twenty before consumingSignalView, and the child was killed after the grace.
    const recycled = pool.stats().recycled;
    for (let run = 0; run < 30; run++) {
      const result = await pool.run('while True: pass', { timeoutMs: 100 + run, maxOutputBytes: 4096 });
      expect(result.error?.message).toBe(`Timeout: the run passed ${100 + run} ms and was interrupted`);
    }
    expect(pool.stats().recycled).toBe(recycled);
  });

  it.each([
    ['time.sleep(30)', 'import time\ntime.sleep(30)'],
    ['sum(range(10**11))', 'sum(range(10**11))'],
    ['a loop that catches KeyboardInterrupt', 'while True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass'],
  ])('kills %s after the grace and replaces the interpreter from the standby', async (_name, code) => {
    await pool.warmUp();
    const before = pool.stats();
    const result = await expectBlocked(code, 'Timeout');
    expect(result.timedOut).toBe(true);
    expect(result.error?.message).toContain('killed');
    const after = pool.stats();
    expect(after.recycled).toBe(before.recycled + 1);
    expect(after.standbyPromotions).toBe(before.standbyPromotions + 1);
    expect(after.coldStarts).toBe(before.coldStarts);
  });

  it('turns memory bombs into MemoryError', async () => {
    await expectBlocked("x = 'a' * 10**9", 'MemoryError');
    await pool.warmUp();
    const recycled = pool.stats().recycled;
    await expectBlocked("x = []\nwhile True:\n    x.append(' ' * 10**6)", 'MemoryError', 5000);
    expect(pool.stats().recycled).toBe(recycled + 1); // its heap stays grown: replaced
  });

  it('stops a 50 MB print at the byte cap', async () => {
    const result = await expectBlocked("print('x' * 50_000_000)", 'OutputLimit');
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('x'.repeat(4096));
    const flood = await expectBlocked("while True:\n    print('flood')", 'OutputLimit');
    expect(flood.stdout).toBe('flood\n'.repeat(683).slice(0, 4096));
  });

  it('reports deep recursion as RecursionError with a short traceback', async () => {
    const result = await expectBlocked('def f(n):\n    return f(n + 1)\nf(0)', 'RecursionError');
    expect(result.error?.message).toMatch(
      /^Traceback \(most recent call last\):\n {2}File "<exec>", line 3, in <module>\n {4}f\(0\)\n {2}File "<exec>", line 2, in f\n {4}return f\(n \+ 1\)\n {2}\[Previous line repeated \d+ more times\]\nRecursionError: maximum recursion depth exceeded$/,
    );
  });

  it('answers input() with InputBlocked', async () => {
    await expectBlocked('name = input()', 'InputBlocked');
  });

  it('forgets files between runs and refuses writes outside /tmp and the working directory', async () => {
    const write = await pool.run("open('/tmp/note.txt', 'w').write('a')\nopen('note.txt', 'w').write('b')\nprint('written')");
    expect(write).toMatchObject({ ok: true, stdout: 'written\n' });
    await expectBlocked("print(open('/tmp/note.txt').read())", 'FileNotFoundError');
    await expectBlocked("print(open('note.txt').read())", 'FileNotFoundError');
    await expectBlocked("open('/lib/python3.14/site-packages/math2.py', 'w')", 'PermissionError');
  });

  it('undoes monkeypatched builtins, modules, sys.path and cwd before the next run', async () => {
    const patch = await pool.run(
      "import builtins, math, os, sys\nbuiltins.print = lambda *a, **k: None\nbuiltins.int = str\nmath.pi = 3\nsys.path.insert(0, '/tmp')\nos.chdir('/')",
    );
    expect(patch.ok).toBe(true);
    await expectNextRunWorks();
    const check = await pool.run("import math, os, sys\nprint(math.pi, int('7') + 1, os.getcwd(), '/tmp' in sys.path)");
    expect(check.stdout).toBe('3.141592653589793 8 /home/pyodide False\n');
  });
});
