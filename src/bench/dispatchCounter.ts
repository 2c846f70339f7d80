/**
 * Counts what a tiny model's token step costs on a latency-bound backend: kernel dispatches and
 * device-to-host readbacks. Every tfjs op reaches its backend through the engine's `runKernel`, and
 * every `data()`/`dataSync()` through the engine's `read`/`readSync`, so wrapping those three methods
 * on the live engine sees them all (a kernel that calls another kernel inside the backend counts once).
 */
import * as tf from '@tensorflow/tfjs-core';

export interface DispatchCounts {
  kernels: number;
  readbacks: number;
  /** Bytes those readbacks brought back. */
  readbackBytes: number;
  /** Kernel calls by name, for finding where a step spends its dispatches. */
  byKernel: Record<string, number>;
  /**
   * Milliseconds inside the engine's runKernel (outermost calls only): on wasm and cpu the kernels'
   * whole work, on WebGPU and WebGL only their submission.
   */
  kernelMs: number;
  /** Milliseconds inside read and readSync (an asynchronous read until its data arrived). */
  readbackMs: number;
}

export interface DispatchCounter {
  /** Counts since the counter was made (or last reset). */
  counts(): DispatchCounts;
  reset(): void;
  /** Puts the engine's own methods back; the counter stops counting. */
  stop(): void;
}

type Engine = ReturnType<typeof tf.engine>;

/** Starts counting on the current engine. Only one counter at a time: a second would count twice. */
export function countDispatches(engine: Engine = tf.engine()): DispatchCounter {
  const original = { runKernel: engine.runKernel, read: engine.read, readSync: engine.readSync };
  let kernels = 0;
  let readbacks = 0;
  let readbackBytes = 0;
  let kernelMs = 0;
  let readbackMs = 0;
  let depth = 0;
  const countRead = (dataId: object) => {
    readbacks++;
    readbackBytes += engine.state.tensorInfo.get(dataId)?.bytes ?? 0;
  };
  let byKernel: Record<string, number> = {};
  // Own properties shadow the prototype's methods; deleting them restores the originals.
  engine.runKernel = function (this: Engine, ...args: Parameters<Engine['runKernel']>) {
    kernels++;
    byKernel[args[0]] = (byKernel[args[0]] ?? 0) + 1;
    const started = performance.now();
    depth++;
    try {
      return original.runKernel.apply(this, args);
    } finally {
      depth--;
      if (depth === 0) kernelMs += performance.now() - started;
    }
  } as Engine['runKernel'];
  engine.read = function (this: Engine, ...args: Parameters<Engine['read']>) {
    countRead(args[0]);
    const started = performance.now();
    return original.read.apply(this, args).finally(() => (readbackMs += performance.now() - started));
  };
  engine.readSync = function (this: Engine, ...args: Parameters<Engine['readSync']>) {
    countRead(args[0]);
    const started = performance.now();
    try {
      return original.readSync.apply(this, args);
    } finally {
      readbackMs += performance.now() - started;
    }
  };
  return {
    counts: () => ({ kernels, readbacks, readbackBytes, byKernel: { ...byKernel }, kernelMs, readbackMs }),
    reset: () => {
      kernels = 0;
      readbacks = 0;
      readbackBytes = 0;
      kernelMs = 0;
      readbackMs = 0;
      byKernel = {};
    },
    stop: () => {
      for (const key of ['runKernel', 'read', 'readSync'] as const) {
        if (Object.prototype.hasOwnProperty.call(engine, key)) delete (engine as unknown as Record<string, unknown>)[key];
      }
    },
  };
}

/** Where a phase's wall time went, in seconds: inside kernels, inside readbacks, and the rest (JS between kernels). */
export interface TimeSplit {
  kernels: number;
  readback: number;
  other: number;
}

export function timeSplit(counts: DispatchCounts, wallSeconds: number): TimeSplit {
  const kernels = counts.kernelMs / 1000;
  const readback = counts.readbackMs / 1000;
  return { kernels: round3(kernels), readback: round3(readback), other: round3(Math.max(0, wallSeconds - kernels - readback)) };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
