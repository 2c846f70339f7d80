/**
 * Entry of one sandbox child process, started by nodeInterpreter.ts under Node's permission model.
 * Plain JavaScript because the child runs without a TypeScript loader.
 *
 * Pyodide runs in a worker thread (pyodideThread.mjs) so that this thread stays free to write the
 * interrupt buffer at the timeout: a SharedArrayBuffer cannot cross the process boundary, but it
 * can cross a thread. The host kills the whole process when the interrupt is not enough.
 *
 * This thread also watches the whole process's resident memory while a run is on: the wasm heap
 * has its own cap, but JS arrays a program could reach are outside it. Past `rssLimitBytes` the
 * process answers that run with `overMemory` and exits.
 *
 * IPC with the host (V8's serialization, so that a snapshot made here crosses as bytes):
 *                           in  { type: 'init', indexURL, runnerSource, heapLimitBytes, fileBytesPerRun, rssLimitBytes,
 *                                 snapshotFd, memorySnapshot: { make: true } | { byteLength } | null }
 *                               (a snapshot to load: its byteLength raw bytes on descriptor snapshotFd, then its end)
 *                               { type: 'run', id, code, timeoutMs, maxOutputBytes }
 *                           out { type: 'memorySnapshot', bytes: Uint8Array } (asked to make one: before ready)
 *                               { type: 'ready', restored } | { type: 'failed', message }
 *                               { type: 'result', id, ...IsolatedReply, interrupted, rssBytes }
 *                               { type: 'result', id, overMemory: true, rssBytes }
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

const interruptBuffer = new Int32Array(new SharedArrayBuffer(4));
const SIGINT = 2;
/** How often the resident memory is read during a run: about 1 µs a read. */
const MEMORY_POLL_MS = 5;

function fail(message) {
  process.send({ type: 'failed', message }, () => process.exit(1));
}

/** Exactly `byteLength` bytes from descriptor `fd`, read into one buffer, then the descriptor closed. */
function readSnapshot(fd, byteLength, done) {
  const bytes = new Uint8Array(byteLength);
  let at = 0;
  const next = () =>
    fs.read(fd, bytes, at, byteLength - at, null, (error, count) => {
      if (error) return fail(`the memory snapshot could not be read: ${error.message}`);
      at += count;
      if (count > 0 && at < byteLength) return next();
      fs.closeSync(fd);
      if (at < byteLength) return fail(`the memory snapshot ended after ${at} of ${byteLength} bytes`);
      done(bytes);
    });
  next();
}

function start(init) {
  const { snapshotFd, memorySnapshot, ...threadInit } = init;
  if (memorySnapshot && 'byteLength' in memorySnapshot) {
    readSnapshot(snapshotFd, memorySnapshot.byteLength, (load) => startThread({ ...threadInit, memorySnapshot: { load } }));
    return;
  }
  fs.closeSync(snapshotFd); // nothing comes on it
  startThread({ ...threadInit, memorySnapshot });
}

function startThread(init) {
  const { rssLimitBytes, ...threadData } = init;
  // The snapshot moves to the thread and is not kept here.
  const snapshot = threadData.memorySnapshot?.load ?? null;
  const worker = new Worker(new URL('./pyodideThread.mjs', import.meta.url), {
    workerData: { ...threadData, interruptBuffer },
    transferList: snapshot ? [snapshot.buffer] : [],
    stdout: true, // the thread's console output is not the run's output: drop it
    stderr: true,
  });
  let timer = null;
  let watch = null;
  let interrupted = false;

  worker.on('message', (message) => {
    if (message.type === 'result') {
      clearTimeout(timer);
      clearInterval(watch);
      process.send({ ...message, interrupted, rssBytes: process.memoryUsage.rss() });
    } else {
      // The ready message follows the snapshot's bytes, which need not stay after they are sent.
      process.send(message, () => message.type === 'ready' && globalThis.gc?.());
    }
  });
  worker.on('error', (error) => fail(String(error?.stack ?? error)));
  worker.on('exit', (code) => fail(`the Pyodide thread exited with code ${code}`));

  process.on('message', (message) => {
    if (message.type !== 'run') return;
    interrupted = false;
    timer = setTimeout(() => {
      interrupted = true;
      Atomics.store(interruptBuffer, 0, SIGINT);
    }, message.timeoutMs);
    watch = setInterval(() => {
      const rssBytes = process.memoryUsage.rss();
      if (rssBytes <= rssLimitBytes) return;
      clearInterval(watch);
      process.send({ type: 'result', id: message.id, overMemory: true, rssBytes }, () => process.exit(1));
    }, MEMORY_POLL_MS);
    worker.postMessage(message);
  });
}

process.once('message', (message) => {
  if (message.type === 'init') start(message);
  else fail(`expected init, got ${message.type}`);
});
process.on('disconnect', () => process.exit(0));
