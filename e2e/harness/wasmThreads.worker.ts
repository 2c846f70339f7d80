/**
 * A module worker built like the trainer worker, for e2e/wasmThreads.spec.ts: starts the wasm
 * backend with a given thread setting, checks it against the cpu backend, and times the two halves
 * of an RL step (batched token steps with readback, a next-token training step) on the shipped
 * model's shape.
 */
import * as Comlink from 'comlink';
import * as tf from '@tensorflow/tfjs-core';
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import { registerBrowserBackends } from '../../src/browser/tf/registerBrowserBackends';
import { wasmBuildNote } from '../../src/browser/tf/wasmBuildNote';
import { BASE_MODEL_CONFIG } from '../../src/core/model/config';
import { GPT } from '../../src/core/model/gpt';
import { nextTokenStep, type NextTokenBatch } from '../../src/core/pretrain/nextTokenStep';
import { Random } from '../../src/core/random';

export interface WasmStartReport {
  backend: string;
  threads: number;
  note: string | null;
  crossOriginIsolated: boolean;
  startMs: number;
}

export interface MatMulCheck {
  /** [[1,2],[3,4]] x [[5,6],[7,8]] on wasm. */
  small: number[];
  /** Largest |wasm - cpu| over a seeded 128x256 by 256x96 product, and the largest |cpu| entry. */
  maxAbsDiff: number;
  maxAbs: number;
}

export interface TrainCheck {
  /** Losses of successive Adam steps on one seeded batch, on wasm. */
  wasmLosses: number[];
  /** The first step's loss from the same weights and batch on cpu. */
  cpuFirstLoss: number;
  /** Live tensors before and after the wasm steps (the optimizer's slots excluded). */
  tensorsBefore: number;
  tensorsAfter: number;
}

export interface WorkloadTiming {
  /** Median ms of one batched token step with its logits read back. */
  tokenStepMs: number;
  /** Median ms of one next-token training step (forward, backward, clip, Adam). */
  trainStepMs: number;
  batch: number;
  trainRows: number;
  trainWidth: number;
}

function seededBatch(rows: number, width: number, seed: number): NextTokenBatch {
  const rng = new Random(seed);
  const inputs = Int32Array.from({ length: rows * width }, () => rng.int(3, BASE_MODEL_CONFIG.vocabSize - 1));
  const targets = Int32Array.from({ length: rows * width }, () => rng.int(3, BASE_MODEL_CONFIG.vocabSize - 1));
  return { rows, width, inputs, targets, mask: new Float32Array(rows * width).fill(1) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const api = {
  async start(wasmThreads: number): Promise<WasmStartReport> {
    registerBrowserBackends({ wasmThreads });
    const started = performance.now();
    if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not start');
    return {
      backend: tf.getBackend(),
      threads: getThreadsCount(),
      note: wasmBuildNote(),
      crossOriginIsolated: globalThis.crossOriginIsolated,
      startMs: Math.round(performance.now() - started),
    };
  },

  async matMulAgainstCpu(): Promise<MatMulCheck> {
    const rng = new Random(11);
    const a = Float32Array.from({ length: 128 * 256 }, () => rng.normal());
    const b = Float32Array.from({ length: 256 * 96 }, () => rng.normal());
    const product = () => tf.tidy(() => tf.matMul(tf.tensor2d(a, [128, 256]), tf.tensor2d(b, [256, 96])).dataSync() as Float32Array);
    await tf.setBackend('wasm');
    const small = tf.tidy(() => Array.from(tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([5, 6, 7, 8], [2, 2])).dataSync()));
    const onWasm = product();
    await tf.setBackend('cpu');
    const onCpu = product();
    await tf.setBackend('wasm');
    let maxAbsDiff = 0;
    let maxAbs = 0;
    for (let i = 0; i < onCpu.length; i++) {
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(onWasm[i] - onCpu[i]));
      maxAbs = Math.max(maxAbs, Math.abs(onCpu[i]));
    }
    return { small, maxAbsDiff, maxAbs };
  },

  async trainAgainstCpu(steps: number): Promise<TrainCheck> {
    const batch = seededBatch(8, 32, 5);
    const options = { learningRate: 3e-3, gradClip: 1 };
    await tf.setBackend('cpu');
    const cpuModel = GPT.init(BASE_MODEL_CONFIG, 2);
    const cpuOptimizer = tf.train.adam();
    const cpuFirstLoss = await nextTokenStep(cpuModel, cpuOptimizer, batch, options);
    cpuOptimizer.dispose();
    cpuModel.dispose();
    await tf.setBackend('wasm');
    const model = GPT.init(BASE_MODEL_CONFIG, 2);
    const optimizer = tf.train.adam();
    // The first step creates Adam's moment slots; count from after it.
    const wasmLosses = [await nextTokenStep(model, optimizer, batch, options)];
    const tensorsBefore = tf.memory().numTensors;
    for (let i = 1; i < steps; i++) wasmLosses.push(await nextTokenStep(model, optimizer, batch, options));
    const tensorsAfter = tf.memory().numTensors;
    optimizer.dispose();
    model.dispose();
    return { wasmLosses, cpuFirstLoss, tensorsBefore, tensorsAfter };
  },

  /** The quick preset's shapes: 64 sequences decoding together; a 64-row update of 128 positions. */
  async timeWorkload(rounds: number): Promise<WorkloadTiming> {
    await tf.setBackend('wasm');
    const batchSize = 64;
    const trainRows = 64;
    const trainWidth = 128;
    const model = GPT.init(BASE_MODEL_CONFIG, 0);
    const optimizer = tf.train.adam();
    const batch = seededBatch(trainRows, trainWidth, 9);
    const tokens = new Int32Array(batchSize);
    const tokenMs: number[] = [];
    const trainMs: number[] = [];
    try {
      const cache = model.newCache(batchSize);
      try {
        // The first steps warm up; the cache holds contextLength positions.
        for (let t = 0; t < Math.min(rounds * 8 + 8, BASE_MODEL_CONFIG.contextLength); t++) {
          for (let b = 0; b < batchSize; b++) tokens[b] = (7 * t + b) % BASE_MODEL_CONFIG.vocabSize;
          const started = performance.now();
          const { logits, values } = model.step(cache, tokens);
          await logits.data();
          tf.dispose([logits, values]);
          if (t >= 8) tokenMs.push(performance.now() - started);
        }
      } finally {
        cache.dispose();
      }
      for (let i = 0; i <= rounds; i++) {
        const started = performance.now();
        await nextTokenStep(model, optimizer, batch, { learningRate: 1e-4, gradClip: 1 });
        if (i > 0) trainMs.push(performance.now() - started);
      }
    } finally {
      optimizer.dispose();
      model.dispose();
    }
    const round2 = (x: number) => Math.round(x * 100) / 100;
    return { tokenStepMs: round2(median(tokenMs)), trainStepMs: round2(median(trainMs)), batch: batchSize, trainRows, trainWidth };
  },
};

export type WasmThreadsWorkerApi = typeof api;

Comlink.expose(api);
