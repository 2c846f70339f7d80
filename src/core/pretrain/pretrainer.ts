/**
 * Pretraining the base model: next-character prediction on the synthetic corpus. Each row
 * starts at a document boundary (BOS doc EOS BOS doc EOS ... PAD), as a rollout starts at BOS,
 * and PAD targets carry no loss. Linear warm-up, then cosine decay to a tenth of the peak rate.
 */
import * as tf from '@tensorflow/tfjs-core';
import { corpusDocument, DEFAULT_CORPUS_RECIPE, type CorpusRecipe } from '../corpus/corpus';
import type { GPT } from '../model/gpt';
import { Random } from '../random';
import { nextTokenStep, type NextTokenRun } from './nextTokenStep';
import { BOS, encode, EOS, PAD } from '../tokenizer';

/** Documents longer than a row are skipped. */
export interface PretrainConfig extends NextTokenRun {
  recipe: CorpusRecipe;
}

/** The recipe of the shipped base model (public/models/base). */
export const BASE_PRETRAIN_CONFIG: PretrainConfig = {
  seed: 1,
  steps: 1500,
  batchSize: 32,
  rowLength: 128,
  learningRate: 3e-3,
  warmupSteps: 50,
  gradClip: 1,
  recipe: DEFAULT_CORPUS_RECIPE,
};

export interface PretrainStep {
  step: number;
  loss: number;
  learningRate: number;
}

export class Pretrainer {
  step = 0;
  private readonly rng: Random;
  private readonly optimizer: tf.Optimizer;
  private carried: number[] | null = null;

  constructor(
    readonly model: GPT,
    readonly config: PretrainConfig,
  ) {
    this.rng = new Random(config.seed).fork(7);
    this.optimizer = tf.train.adam(config.learningRate);
  }

  learningRateAt(step: number): number {
    const { learningRate, warmupSteps, steps } = this.config;
    if (step < warmupSteps) return (learningRate * (step + 1)) / warmupSteps;
    const progress = Math.min(1, (step - warmupSteps) / Math.max(1, steps - warmupSteps));
    return learningRate * (0.1 + 0.45 * (1 + Math.cos(Math.PI * progress)));
  }

  /** One batch of rows, each BOS-started whole documents padded with PAD (length rowLength + 1). */
  nextRows(): Int32Array {
    const { batchSize, rowLength } = this.config;
    const width = rowLength + 1;
    const rows = new Int32Array(batchSize * width).fill(PAD);
    for (let r = 0; r < batchSize; r++) {
      let filled = 0;
      for (;;) {
        const doc = this.carried ?? this.nextDocument(width);
        this.carried = null;
        if (filled + doc.length > width) {
          this.carried = doc;
          break;
        }
        rows.set(doc, r * width + filled);
        filled += doc.length;
      }
    }
    return rows;
  }

  private nextDocument(width: number): number[] {
    for (;;) {
      const ids = [BOS, ...encode(corpusDocument(this.rng, this.config.recipe)), EOS];
      if (ids.length <= width) return ids;
    }
  }

  async trainStep(): Promise<PretrainStep> {
    const { batchSize, rowLength, gradClip } = this.config;
    const learningRate = this.learningRateAt(this.step);
    const rows = this.nextRows();
    const width = rowLength + 1;
    const inputs = new Int32Array(batchSize * rowLength);
    const targets = new Int32Array(batchSize * rowLength);
    for (let r = 0; r < batchSize; r++) {
      inputs.set(rows.subarray(r * width, r * width + rowLength), r * rowLength);
      targets.set(rows.subarray(r * width + 1, (r + 1) * width), r * rowLength);
    }
    const mask = Float32Array.from(targets, (t) => (t === PAD ? 0 : 1));
    const batch = { rows: batchSize, width: rowLength, inputs, targets, mask };
    const loss = await nextTokenStep(this.model, this.optimizer, batch, { learningRate, gradClip });
    this.step++;
    return { step: this.step, loss, learningRate };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

