/**
 * The worker thread of a sandbox child process (see child.mjs): loads Pyodide offline, locks down
 * what the permission model does not cover, then runs the Python runner once per message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { pathToFileURL } from 'node:url';

const { indexURL, runnerSource, heapLimitBytes, interruptBuffer } = workerData;

// Node 20's permission model has no network switch, and Pyodide can open real sockets
// (pyodide.useNodeSockFS). Every TCP/TLS/HTTP client and server in this thread goes through these.
function disableNetwork() {
  const refuse = () => {
    throw new Error('network access is disabled in the sandbox');
  };
  net.Socket.prototype.connect = refuse;
  net.Server.prototype.listen = refuse;
  dgram.Socket.prototype.bind = refuse;
  dgram.Socket.prototype.connect = refuse;
  dgram.Socket.prototype.send = refuse;
  delete globalThis.fetch;
  delete globalThis.WebSocket;
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

parentPort.on('message', ({ id, code, maxOutputBytes }) => {
  Atomics.store(interruptBuffer, 0, 0);
  try {
    parentPort.postMessage({ type: 'result', id, output: runner(code, maxOutputBytes), heapBytes: heapBytes() });
  } catch (error) {
    // A fatal Pyodide error (a denied os.system past the guard, a wasm trap) leaves it unusable.
    parentPort.postMessage({ type: 'result', id, failure: describeFailure(error), fatal: true, heapBytes: 0 });
  }
});
parentPort.postMessage({ type: 'ready' });
