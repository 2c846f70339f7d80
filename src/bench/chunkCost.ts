/**
 * Where the update's chunk cost (rl/minibatchGradients.ts) comes from: the time of one forward and
 * backward pass over chunks of several shapes, and the least-squares fit of
 *   ms = overhead + positionMs * rows * width * (1 + width / widthDoubling),
 * linear in (overhead, positionMs, positionMs / widthDoubling). `npm run bench:chunks` prints both.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT } from '../core/model/gpt';

export interface ChunkTiming {
  rows: number;
  width: number;
  ms: number;
}

export interface ChunkCostFit {
  /** A chunk's fixed cost (its kernel launches), ms. */
  overheadMs: number;
  /** A row-position's cost in a narrow chunk, ms. */
  positionMs: number;
  /** The width at which a row-position costs twice positionMs. */
  widthDoubling: number;
  /** overheadMs in row-positions: what minibatchGradients calls CHUNK_OVERHEAD. */
  overheadPositions: number;
}

/** Many rows of one width, and few rows of a wide one (the overhead shows there). */
export const CHUNK_SHAPES: readonly [rows: number, width: number][] = [
  [1, 120], [2, 120], [4, 120], [8, 120], [16, 120], [32, 120], [32, 90], [32, 60], [32, 30], [8, 30], [2, 30],
];

/** Mean ms of `repeats` forward + backward passes (the gradient of the mean logit) over rows x width tokens. */
export async function timeChunk(model: GPT, rows: number, width: number, repeats: number): Promise<number> {
  const variables = model.trainableVariables();
  const tokens = tf.tensor2d(new Int32Array(rows * width).fill(5), [rows, width], 'int32');
  try {
    const started = performance.now();
    for (let i = 0; i < repeats; i++) {
      const { value, grads } = tf.variableGrads(() => tf.mean(model.forward(tokens).logits) as tf.Scalar, variables);
      await value.data();
      tf.dispose([value, ...Object.values(grads)]);
    }
    return (performance.now() - started) / repeats;
  } finally {
    tokens.dispose();
  }
}

/** The least-squares fit of the cost model to timings of at least three different shapes. */
export function fitChunkCost(timings: readonly ChunkTiming[]): ChunkCostFit {
  // ms = c0 + a * (r w) + c1 * (r w^2), solved from the normal equations (3 x 3, Gaussian elimination),
  // each feature scaled to at most 1 first, since r w^2 is 1e5 times the constant term.
  const raw = timings.map(({ rows, width }) => [1, rows * width, rows * width * width]);
  const scale = [0, 1, 2].map((i) => Math.max(...raw.map((f) => f[i])));
  const features = raw.map((f) => f.map((x, i) => x / scale[i]));
  const normal = [0, 1, 2].map((i) => [0, 1, 2].map((j) => features.reduce((s, f) => s + f[i] * f[j], 0)));
  const right = [0, 1, 2].map((i) => features.reduce((s, f, k) => s + f[i] * timings[k].ms, 0));
  const [overheadMs, positionMs, widthTerm] = solve3(normal, right).map((x, i) => x / scale[i]);
  return { overheadMs, positionMs, widthDoubling: positionMs / widthTerm, overheadPositions: overheadMs / positionMs };
}

function solve3(matrix: number[][], right: number[]): number[] {
  const m = matrix.map((row, i) => [...row, right[i]]);
  for (let col = 0; col < 3; col++) {
    const pivot = [col, col + 1, col + 2].filter((r) => r < 3).reduce((best, r) => (Math.abs(m[r][col]) > Math.abs(m[best][col]) ? r : best));
    if (Math.abs(m[pivot][col]) < 1e-9) {
      throw new Error('the chunk timings do not determine the fit: time at least three shapes of different rows x width');
    }
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < 3; r++) {
      if (r === col) continue;
      const factor = m[r][col] / m[col][col];
      for (let c = col; c < 4; c++) m[r][c] -= factor * m[col][c];
    }
  }
  return m.map((row, i) => row[3] / row[i]);
}
