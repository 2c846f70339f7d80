/**
 * The worker thread of a sandbox child process (see child.mjs): loads Pyodide offline, locks down
 * what the permission model does not cover, then runs the Python runner once per message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { pathToFileURL } from 'node:url';

const { indexURL, runnerSource, heapLimitBytes, interruptBuffer } = workerData;

/** Set when code reached a host capability that is refused below; the host then recycles us. */
let violation = null;

function refuse(what) {
  return () => {
    violation = what;
    throw new Error(`${what} is not available in the sandbox`);
  };
}

// Node 20's permission model has no network switch, and Pyodide can open real sockets
// (pyodide.useNodeSockFS). Every TCP/TLS/HTTP client and server in this thread goes through these.
function disableNetwork() {
  net.Socket.prototype.connect = refuse('network access');
  net.Server.prototype.listen = refuse('network access');
  dgram.Socket.prototype.bind = refuse('network access');
  dgram.Socket.prototype.connect = refuse('network access');
  dgram.Socket.prototype.send = refuse('network access');
  delete globalThis.fetch;
  delete globalThis.WebSocket;
}

// The permission model already denies these (os.system reaches spawnSync); this only marks the
// attempt, because an error thrown through Pyodide's C frames may leave it unsound.
function tripChildProcesses() {
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = refuse('starting a process');
  }
  syncBuiltinESMExports(); // so `import('node:child_process')` sees the same functions
}

// Wasm memory only grows (to 4 GiB): refusing growth past the cap turns a memory bomb into a
// Python MemoryError instead of gigabytes of host RAM.
function capHeap(limitBytes) {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (pages) {
    if (this.buffer.byteLength + pages * 65536 > limitBytes) throw new RangeError('sandbox heap limit');
    return grow.call(this, pages);
  };
}

// Pyodide's start reads process.binding('constants'), which the permission model denies.
function answerConstantsBinding() {
  const binding = process.binding;
  process.binding = (name) => (name === 'constants' ? { fs: fs.constants, os: os.constants } : binding(name));
}

function describeFailure(error) {
  const code = error?.code ? `${error.code}${error.permission ? ` (${error.permission})` : ''}: ` : '';
  return `${code}${String(error?.message ?? error)}`.slice(0, 2000);
}

disableNetwork();
tripChildProcesses();
capHeap(heapLimitBytes);
answerConstantsBinding();

const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const discard = (buffer) => buffer.length;
const pyodide = await loadPyodide({
  indexURL,
  jsglobals: Object.create(null), // `import js` finds nothing: no process, no require, no fetch
  env: { HOME: '/home/pyodide' },
  stdout: () => {},
  stderr: () => {},
});
pyodide.setStdout({ write: discard }); // the runner captures sys.stdout; fd-level writes are dropped
pyodide.setStderr({ write: discard });
pyodide.setStdin({ error: true });
pyodide.setInterruptBuffer(interruptBuffer);
const runner = pyodide.runPython(runnerSource, { globals: pyodide.toPy({}) });
const heapBytes = () => pyodide._module.HEAP8.length;
runner('pass', 0); // the first call compiles the runner's paths: keep that off a caller's clock

parentPort.on('message', ({ id, code, maxOutputBytes }) => {
  Atomics.store(interruptBuffer, 0, 0);
  violation = null;
  let reply;
  try {
    reply = { type: 'result', id, output: runner(code, maxOutputBytes), heapBytes: heapBytes() };
  } catch (error) {
    // A fatal Pyodide error (a wasm trap, an error thrown through its C frames) leaves it unusable.
    reply = { type: 'result', id, failure: describeFailure(error), heapBytes: 0 };
  }
  parentPort.postMessage({ ...reply, replace: reply.failure !== undefined || violation !== null, violation });
});
parentPort.postMessage({ type: 'ready' });
