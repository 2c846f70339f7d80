/**
 * The cold-start SFT stage: next-token loss on the traces' responses, with the interpreter output
 * masked from the loss as ReTool does (the model reads tool output but is never trained to write
 * it) and the prompt masked too (it is given, not generated). Rows are one trace each, BOS prompt
 * response EOS, padded with PAD. Linear warm-up, then a constant rate.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT } from '../model/gpt';
import { Random } from '../random';
import { nextTokenStep, type NextTokenRun } from '../pretrain/nextTokenStep';
import { BOS, encode, EOS, PAD } from '../tokenizer';
import type { ColdStartTrace } from './coldStartTraces';

/** A trace longer than a row is an error. */
export type SftConfig = NextTokenRun;

export const DEFAULT_SFT_CONFIG: SftConfig = {
  seed: 1,
  steps: 200,
  batchSize: 16,
  rowLength: 128,
  learningRate: 1e-3,
  warmupSteps: 20,
  gradClip: 1,
};

/** A trace as token ids (BOS prompt response EOS) and, per id, 1 when predicting it carries loss. */
export function traceRow(trace: ColdStartTrace): { ids: number[]; lossMask: number[] } {
  const ids = [BOS, ...encode(trace.prompt)];
  const lossMask = ids.map(() => 0);
  for (const segment of trace.segments) {
    const segmentIds = encode(segment.text);
    ids.push(...segmentIds);
    lossMask.push(...segmentIds.map(() => (segment.kind === 'policy' ? 1 : 0)));
  }
  ids.push(EOS);
  lossMask.push(1);
  return { ids, lossMask };
}

export interface SftStep {
  step: number;
  loss: number;
  learningRate: number;
}

export class SftTrainer {
  step = 0;
  private readonly rng: Random;
  private readonly optimizer: tf.Optimizer;
  private readonly rows: { ids: number[]; lossMask: number[] }[];
  private order: number[] = [];

  constructor(
    readonly model: GPT,
    traces: ColdStartTrace[],
    readonly config: SftConfig,
  ) {
    if (traces.length === 0) throw new Error('SFT needs at least one trace');
    this.rows = traces.map(traceRow);
    const longest = Math.max(...this.rows.map((r) => r.ids.length));
    if (longest - 1 > config.rowLength) throw new Error(`a trace needs ${longest - 1} input tokens, more than rowLength ${config.rowLength}`);
    this.rng = new Random(config.seed).fork(11);
    this.optimizer = tf.train.adam(config.learningRate);
  }

  learningRateAt(step: number): number {
    const { learningRate, warmupSteps } = this.config;
    return step < warmupSteps ? (learningRate * (step + 1)) / warmupSteps : learningRate;
  }

  /** Row indices of the next batch: passes over the traces, each pass in a fresh seeded order. */
  private nextBatch(): number[] {
    const batch: number[] = [];
    while (batch.length < this.config.batchSize) {
      if (this.order.length === 0) this.order = this.rng.permutation(this.rows.length);
      batch.push(this.order.pop()!);
    }
    return batch;
  }

  /** Inputs, targets and the loss mask for rows `batch`, each [batch, rowLength]. */
  batchArrays(batch: number[]): { inputs: Int32Array; targets: Int32Array; mask: Float32Array } {
    const T = this.config.rowLength;
    const inputs = new Int32Array(batch.length * T).fill(PAD);
    const targets = new Int32Array(batch.length * T).fill(PAD);
    const mask = new Float32Array(batch.length * T);
    batch.forEach((rowIndex, r) => {
      const { ids, lossMask } = this.rows[rowIndex];
      for (let t = 0; t + 1 < ids.length; t++) {
        inputs[r * T + t] = ids[t];
        targets[r * T + t] = ids[t + 1];
        mask[r * T + t] = lossMask[t + 1];
      }
    });
    return { inputs, targets, mask };
  }

  async trainStep(): Promise<SftStep> {
    const { batchSize, rowLength, gradClip } = this.config;
    const learningRate = this.learningRateAt(this.step);
    const batch = { rows: batchSize, width: rowLength, ...this.batchArrays(this.nextBatch()) };
    const loss = await nextTokenStep(this.model, this.optimizer, batch, { learningRate, gradClip });
    this.step++;
    return { step: this.step, loss, learningRate };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

