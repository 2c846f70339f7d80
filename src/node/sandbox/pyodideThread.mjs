/**
 * The worker thread of a sandbox child process (see child.mjs): loads Pyodide offline, locks down
 * what the permission model does not cover, then runs one program per message from the same
 * baseline (interpreterIsolation.mjs: the heap restored after each run, output counted here).
 */
import { parentPort, workerData } from 'node:worker_threads';
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { hookPyodideInstantiation, IsolatedRunner, settleSnapshotStart, snapshotLoadOptions } from '../../core/sandbox/interpreterIsolation.mjs';

const { indexURL, runnerSource, heapLimitBytes, fileBytesPerRun, interruptBuffer, memorySnapshot } = workerData;

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

// Pyodide's start reads process.binding('constants'), which the permission model denies.
function answerConstantsBinding() {
  const binding = process.binding;
  process.binding = (name) => (name === 'constants' ? { fs: fs.constants, os: os.constants } : binding(name));
}

disableNetwork();
tripChildProcesses();
answerConstantsBinding();

const hook = hookPyodideInstantiation({ heapLimitBytes });
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({
  indexURL,
  jsglobals: Object.create(null), // `import js` finds nothing: no process, no require, no fetch
  env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0' }, // set and dict order the same in every interpreter
  stdout: () => {},
  stderr: () => {},
  // Pyodide's memory right after a load, made by the pool's first interpreter before any program ran
  // there (nodeInterpreter.ts): a restart from it takes about half a load's time and CPU.
  ...snapshotLoadOptions(memorySnapshot),
});
hook.release();
// A restore's 30 MiB become the runner's copy of the heap, and a made snapshot's leave with their
// message, before the resident memory, which decides recycles, is first read.
const { made, spare } = settleSnapshotStart(pyodide, memorySnapshot);
if (made) parentPort.postMessage({ type: 'memorySnapshot', bytes: made }, [made.buffer]);
const runner = IsolatedRunner.start(pyodide, hook, { runnerSource, interruptBuffer, fileBytesPerRun, spare });
globalThis.gc?.();

parentPort.on('message', ({ id, code, maxOutputBytes }) => {
  Atomics.store(interruptBuffer, 0, 0);
  violation = null;
  const reply = runner.run(code, maxOutputBytes);
  const replace = reply.replace || violation !== null;
  parentPort.postMessage({ type: 'result', id, ...reply, replace, reason: violation ?? reply.reason });
  // After the reply, so a caller does not wait for it; the next message waits its turn.
  if (!replace) runner.reset();
});
parentPort.postMessage({ type: 'ready', restored: Boolean(memorySnapshot?.load) });
