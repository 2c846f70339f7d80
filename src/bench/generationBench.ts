/**
 * Token generation, measured two ways on the same batch: through the KV cache (one position per
 * sequence per step, what rollouts do) and by recomputation (a full causal `forward` over the
 * growing prefix for every new token). Tokens are drawn at temperature 1 from the model itself, so
 * the work matches a rollout's; the KV-cache run also counts dispatches and readbacks per token step.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT } from '../core/model/gpt';
import { sampleTokens } from '../core/model/sampling';
import { Random } from '../core/random';
import { BOS } from '../core/tokenizer';
import { decodeStep, readKeptValues } from '../core/rollout/rollout';
import { countDispatches, timeSplit, type DispatchCounts, type TimeSplit } from './dispatchCounter';
import { countModelFlops } from './flops';

export interface GenerationRun {
  batch: number;
  newTokens: number;
  seconds: number;
  tokensPerSecond: number;
}

export interface CachedGenerationRun extends GenerationRun {
  dispatchesPerTokenStep: number;
  readbacksPerTokenStep: number;
  /** What those readbacks bring back: the logits [B, V], or on WebGPU the sampled [B, 2]. */
  readbackBytesPerTokenStep: number;
  /** Kernel calls per token step by kernel name, largest first. */
  kernelsPerTokenStep: Record<string, number>;
  /** The model FLOPs of the run (src/bench/flops.ts). */
  flops: number;
  split: TimeSplit;
}

/** `newTokens` tokens for each of `batch` sequences through the KV cache, from BOS, as a rollout's token steps. */
export async function generateWithCache(model: GPT, batch: number, newTokens: number, seed: number): Promise<CachedGenerationRun> {
  const rng = new Random(seed);
  const cache = model.newCache(batch);
  let feed: Int32Array = new Int32Array(batch).fill(BOS);
  const kept: tf.Tensor1D[] = [];
  const counter = countDispatches();
  const started = performance.now();
  let flops = 0;
  try {
    ({ flops } = await countModelFlops(async () => {
      for (let t = 0; t < newTokens; t++) {
        const sampled = await decodeStep(model, cache, feed, 1, rng);
        kept.push(sampled.values);
        feed = sampled.tokens;
      }
      await readKeptValues(kept);
    }));
  } finally {
    counter.stop();
    cache.dispose();
    tf.dispose(kept);
  }
  const seconds = (performance.now() - started) / 1000;
  const counts = counter.counts();
  return { ...rates(batch, newTokens, seconds), ...perStep(counts, newTokens), flops, split: timeSplit(counts, seconds) };
}

/** The same generation without a cache: step t runs `forward` over all t positions so far. */
export async function generateByRecompute(model: GPT, batch: number, newTokens: number, seed: number): Promise<GenerationRun> {
  const rng = new Random(seed);
  const V = model.config.vocabSize;
  const rows: number[][] = Array.from({ length: batch }, () => [BOS]);
  const started = performance.now();
  for (let t = 0; t < newTokens; t++) {
    const width = rows[0].length;
    const last = tf.tidy(() => {
      const { logits } = model.forward(tf.tensor2d(rows.flat(), [batch, width], 'int32'));
      return tf.reshape(tf.slice(logits, [0, width - 1, 0], [batch, 1, V]), [batch, V]);
    });
    let tokens: Int32Array;
    try {
      tokens = (await sampleTokens(last as tf.Tensor2D, 1, rng)).tokens;
    } finally {
      last.dispose();
    }
    rows.forEach((row, b) => row.push(tokens[b]));
  }
  return rates(batch, newTokens, (performance.now() - started) / 1000);
}

function rates(batch: number, newTokens: number, seconds: number): GenerationRun {
  return { batch, newTokens, seconds: round(seconds, 3), tokensPerSecond: round((batch * newTokens) / seconds, 1) };
}

function perStep(counts: DispatchCounts, steps: number) {
  const byName = Object.entries(counts.byKernel).sort((a, b) => b[1] - a[1]);
  return {
    dispatchesPerTokenStep: round(counts.kernels / steps, 2),
    readbacksPerTokenStep: round(counts.readbacks / steps, 2),
    readbackBytesPerTokenStep: round(counts.readbackBytes / steps, 1),
    kernelsPerTokenStep: Object.fromEntries(byName.map(([name, n]) => [name, round(n / steps, 2)])),
  };
}

export function round(x: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(x * scale) / scale;
}
