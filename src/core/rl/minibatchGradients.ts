/**
 * The gradient of one minibatch's loss, computed over chunks of rows of similar length. A padded
 * batch costs rows x its longest row, and the rows are far from equal: answers that ran code carry
 * the tool's output and are two to three times longer than the rest. Sorted by length and cut into
 * chunks (where cutting saves more padding than another chunk's kernel launches cost), the short rows
 * are no longer padded to the long ones.
 *
 * Every term of the objective (ppoObjective.ts) is a mean over the minibatch's policy tokens, so the
 * minibatch's gradient is the sum of the chunks' gradients, each chunk's objective weighted by its
 * share of those tokens.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import type { GPT } from '../model/gpt';
import { tokenLogProbsAndEntropy } from '../model/tokenLogProbs';
import { ppoObjective } from './ppoObjective';
import { disposeMinibatch, minibatchTensors, type TrainingSequence } from './trainingBatch';

/**
 * What a chunk costs, in units of one short row-position of forward and backward on wasm here: a
 * chunk's kernel launches cost about 190 of them (16 ms against 0.085 ms), and a row-position costs
 * more the wider its chunk, twice as much at width 120, as attention's share grows. Fitted to
 * timings of 11 chunk shapes by `npm run bench:chunks` (three runs: 174-215 and 81-131).
 */
export const CHUNK_OVERHEAD = 190;
export const WIDTH_DOUBLING = 120;
/**
 * The same on a GPU backend: not measured (no GPU was at hand), but a GPU does a chunk's arithmetic
 * in far less time than its few hundred kernel launches take, so a chunk outweighs thousands of
 * row-positions there. At 2000 the classroom step's update runs in 3 chunks, the longest rows apart,
 * where 190 would give 7 and the four equal quarters before gave 4.
 */
export const GPU_CHUNK_OVERHEAD = 2000;

/** The chunk overhead for a backend (the active one by default). */
export function chunkOverhead(backend: string = tf.getBackend()): number {
  return backend === 'webgpu' || backend === 'webgl' ? GPU_CHUNK_OVERHEAD : CHUNK_OVERHEAD;
}
/** Padded positions per chunk at most (one row always fits): a chunk's activations stay those of 32 rows of 128. */
export const MAX_CHUNK_POSITIONS = 4096;

export interface MinibatchGradients {
  grads: tf.NamedTensorMap;
  clipFraction: number;
  approxKl: number;
  valueLoss: number;
  entropy: number;
}

export function chunkCost(rows: number, width: number, overhead = CHUNK_OVERHEAD): number {
  return overhead + rows * width * (1 + width / WIDTH_DOUBLING);
}

/**
 * Rows sorted by length, cut into the consecutive chunks of least total chunkCost (a chunk is as
 * wide as its longest row), none over MAX_CHUNK_POSITIONS unless it is one row. A few long rows (the
 * answers that carry a tool's output) get a chunk of their own instead of widening 30 others.
 */
export function lengthChunks(sequences: TrainingSequence[], overhead = chunkOverhead()): TrainingSequence[][] {
  const sorted = [...sequences].sort((a, b) => a.ids.length - b.ids.length);
  // least[j]: the least cost of the first j sorted rows; start[j]: where their last chunk starts.
  const least = new Float64Array(sorted.length + 1);
  const start = new Int32Array(sorted.length + 1);
  for (let j = 1; j <= sorted.length; j++) {
    const width = sorted[j - 1].ids.length;
    least[j] = Infinity;
    for (let i = j - 1; i >= 0 && (i === j - 1 || (j - i) * width <= MAX_CHUNK_POSITIONS); i--) {
      const cost = least[i] + chunkCost(j - i, width, overhead);
      if (cost < least[j]) {
        least[j] = cost;
        start[j] = i;
      }
    }
  }
  const chunks: TrainingSequence[][] = [];
  for (let j = sorted.length; j > 0; j = start[j]) chunks.unshift(sorted.slice(start[j], j));
  return chunks;
}

const policyTokens = (sequences: TrainingSequence[]) => sequences.reduce((n, s) => n + s.policyMask.reduce((a, m) => a + m, 0), 0);

/** The caller disposes `grads`. */
export async function minibatchGradients(
  model: GPT,
  sequences: TrainingSequence[],
  config: ExperimentConfig,
  overhead = chunkOverhead(),
): Promise<MinibatchGradients> {
  const variables = model.trainableVariables();
  const total = Math.max(policyTokens(sequences), 1e-8);
  let grads: tf.NamedTensorMap = {};
  // The figures (clip fraction, approximate KL, value loss, entropy) summed by token share on the
  // device and read once at the end: a read per chunk would make a GPU wait for each chunk in turn.
  let figureSum: tf.Tensor1D | null = null;
  for (const chunk of lengthChunks(sequences, overhead)) {
    const share = policyTokens(chunk) / total;
    if (share === 0) continue;
    const batch = minibatchTensors(chunk);
    let weighted: tf.Tensor1D | null = null;
    const { value, grads: chunkGrads } = tf.variableGrads(() => {
      const { logits, values } = model.forward(batch.inputs);
      const { logProbs, entropy } = tokenLogProbsAndEntropy(logits, batch.targets, config.temperature);
      const terms = ppoObjective({ logProbs, entropy, values }, batch, config);
      weighted = tf.keep(tf.mul(tf.stack([terms.clipFraction, terms.approxKl, terms.valueLoss, terms.entropy]), share) as tf.Tensor1D);
      return tf.mul(terms.loss, share);
    }, variables);
    const summed = tf.tidy(() => Object.fromEntries(Object.entries(chunkGrads).map(([name, g]) => [name, grads[name] ? tf.add(grads[name], g) : tf.clone(g)])));
    tf.dispose([value, ...Object.values(chunkGrads), ...Object.values(grads)]);
    grads = summed;
    const chunkFigures: tf.Tensor1D = weighted!;
    if (figureSum) {
      const sum = tf.add(figureSum, chunkFigures) as tf.Tensor1D;
      tf.dispose([figureSum, chunkFigures]);
      figureSum = sum;
    } else {
      figureSum = chunkFigures;
    }
    disposeMinibatch(batch);
  }
  const [clipFraction, approxKl, valueLoss, entropy] = figureSum ? await figureSum.data() : [0, 0, 0, 0];
  figureSum?.dispose();
  return { grads, clipFraction, approxKl, valueLoss, entropy };
}
