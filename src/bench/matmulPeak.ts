/**
 * The roofline's ceiling: how fast the active backend multiplies matrices, measured in the same run
 * as the work it is compared with. Shapes are the model's own (the update's products over a chunk of
 * rows, a token step's over the batch) and one large square product (1024^3 at the full sizes), which
 * is what a backend's published peak usually means. The peak is the best of them.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPTConfig } from '../core/model/config';
import { Random } from '../core/random';
import { round } from './generationBench';

export interface MatmulShape {
  /** What the product is in the model. */
  name: string;
  m: number;
  k: number;
  n: number;
}

export interface MatmulPeak {
  shapes: (MatmulShape & { gflopsPerSecond: number })[];
  /** The best of `shapes`: the ceiling the report's fractions divide by. */
  peakGflopsPerSecond: number;
}

/** The products of a model's training pass over `rows` positions and of a token step at `batch` rows, and a large square one. */
export function modelMatmulShapes(config: GPTConfig, rows: number, batch: number, largeSide = 1024): MatmulShape[] {
  const C = config.nEmbd;
  const hidden = C * config.mlpRatio;
  return [
    { name: 'qkv projection (update)', m: rows, k: C, n: 3 * C },
    { name: 'MLP in (update)', m: rows, k: C, n: hidden },
    { name: 'MLP out (update)', m: rows, k: hidden, n: C },
    { name: 'qkv projection (token step)', m: batch, k: C, n: 3 * C },
    { name: 'MLP in (token step)', m: batch, k: C, n: hidden },
    { name: 'large square', m: largeSide, k: largeSide, n: largeSide },
  ];
}

/** Times each product (after a warm-up) for at least `minSeconds`, reading the result back once at the end. */
export async function measureMatmulPeak(shapes: MatmulShape[], minSeconds = 0.3): Promise<MatmulPeak> {
  const rng = new Random(7);
  const measured: MatmulPeak['shapes'] = [];
  for (const shape of shapes) {
    const a = tf.tensor2d(Float32Array.from({ length: shape.m * shape.k }, () => rng.normal()), [shape.m, shape.k]);
    const b = tf.tensor2d(Float32Array.from({ length: shape.k * shape.n }, () => rng.normal()), [shape.k, shape.n]);
    try {
      const warmUp = tf.matMul(a, b);
      await warmUp.data();
      warmUp.dispose();
      let reps = 0;
      const started = performance.now();
      let last: tf.Tensor | null = null;
      while ((performance.now() - started) / 1000 < minSeconds || reps < 3) {
        last?.dispose();
        last = tf.matMul(a, b);
        reps++;
        // On a queued backend (WebGPU, WebGL) wait for the work, not only its submission.
        if (reps % 8 === 0) await last.data();
      }
      await last!.data();
      last!.dispose();
      const seconds = (performance.now() - started) / 1000;
      measured.push({ ...shape, gflopsPerSecond: round((2 * shape.m * shape.k * shape.n * reps) / seconds / 1e9, 2) });
    } finally {
      tf.dispose([a, b]);
    }
  }
  return { shapes: measured, peakGflopsPerSecond: Math.max(...measured.map((s) => s.gflopsPerSecond)) };
}
