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
import { chunkThreads, type ChunkGradient, type GradientHelper, type WeightedChunk } from './gradientHelpers';
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

/** A chunk's part of a minibatch's gradient, as tensors the caller disposes: the gradient by variable name, and the weighted figures. */
interface ChunkPart {
  grads: tf.NamedTensorMap;
  figures: tf.Tensor1D;
}

/**
 * One chunk's weighted objective (its share of the minibatch's policy tokens times the objective)
 * and its gradient: the unit minibatchGradients sums, on this thread or a helper's.
 */
export function chunkGradient(model: GPT, chunk: WeightedChunk, config: ExperimentConfig): ChunkPart {
  const batch = minibatchTensors(chunk.sequences);
  try {
    let figures: tf.Tensor1D | null = null;
    const { value, grads } = tf.variableGrads(() => {
      const { logits, values } = model.forward(batch.inputs);
      const { logProbs, entropy } = tokenLogProbsAndEntropy(logits, batch.targets, config.temperature);
      const terms = ppoObjective({ logProbs, entropy, values }, batch, config);
      figures = tf.keep(tf.mul(tf.stack([terms.clipFraction, terms.approxKl, terms.valueLoss, terms.entropy]), chunk.share) as tf.Tensor1D);
      return tf.mul(terms.loss, chunk.share);
    }, model.trainableVariables());
    value.dispose();
    return { grads, figures: figures! };
  } finally {
    disposeMinibatch(batch);
  }
}

/**
 * A cost, in chunkCost's units, of a helper's chunks beyond their own: the weights sent to it and each
 * gradient read back and sent here (0.65 MB each for the shipped model), guessed at one chunk's launches.
 */
const HAND_OFF = CHUNK_OVERHEAD;

/**
 * The caller disposes `grads`. With helpers, some chunks are computed on their threads while this one
 * computes the rest (gradientHelpers.ts); the sum is taken here in chunk order either way.
 */
export async function minibatchGradients(
  model: GPT,
  sequences: TrainingSequence[],
  config: ExperimentConfig,
  overhead = chunkOverhead(),
  helpers: readonly GradientHelper[] = [],
): Promise<MinibatchGradients> {
  const total = Math.max(policyTokens(sequences), 1e-8);
  const chunks = lengthChunks(sequences, overhead)
    .map((part) => ({ sequences: part, share: policyTokens(part) / total }))
    .filter((chunk) => chunk.share > 0);
  const costs = chunks.map((chunk) => chunkCost(chunk.sequences.length, chunk.sequences.at(-1)!.ids.length, overhead));
  const thread = chunkThreads(costs, helpers.length + 1, HAND_OFF);
  const named = model.namedWeights();
  const sent = { config: model.config, weights: thread.some((t) => t > 0) ? Object.fromEntries(named.map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array])) : {} };
  // The helpers' chunks go out first, so their threads work while this one does its own.
  const helped = helpers.map((helper, h) => {
    const mine = chunks.flatMap((_, i) => (thread[i] === h + 1 ? [i] : []));
    return mine.length === 0 ? Promise.resolve([]) : helper.chunkGradients(sent, mine.map((i) => chunks[i]), config).then((results) => results.map((result, j) => ({ chunk: mine[j], result })));
  });
  // Awaited below, unless this thread fails first: then their failures are no longer anyone's to hear.
  for (const pending of helped) pending.catch(() => undefined);
  // The figures (clip fraction, approximate KL, value loss, entropy) summed by token share on the
  // device and read once at the end: a read per chunk would make a GPU wait for each chunk in turn.
  let grads: tf.NamedTensorMap = {};
  let figureSum = null as tf.Tensor1D | null;
  // Each part joins the sum as soon as every chunk before it has: on one thread, as it is made.
  const parts: (ChunkPart | undefined)[] = new Array(chunks.length);
  let summedUpTo = 0;
  const sumReadyParts = () => {
    for (let part = parts[summedUpTo]; part; part = parts[++summedUpTo]) {
      parts[summedUpTo] = undefined;
      const summed = tf.tidy(() => Object.fromEntries(Object.entries(part!.grads).map(([name, g]) => [name, grads[name] ? tf.add(grads[name], g) : tf.clone(g)])));
      tf.dispose([...Object.values(part.grads), ...Object.values(grads)]);
      grads = summed;
      const figures = figureSum ? (tf.add(figureSum, part.figures) as tf.Tensor1D) : part.figures;
      if (figureSum) tf.dispose([figureSum, part.figures]);
      figureSum = figures;
    }
  };
  try {
    chunks.forEach((chunk, i) => {
      if (thread[i] !== 0) return;
      parts[i] = chunkGradient(model, chunk, config);
      sumReadyParts();
    });
    for (const { chunk, result } of (await Promise.all(helped)).flat()) parts[chunk] = partFromHelper(result, named);
    sumReadyParts();
  } catch (error) {
    for (const part of parts) if (part) tf.dispose([...Object.values(part.grads), part.figures]);
    tf.dispose([...Object.values(grads), ...(figureSum ? [figureSum] : [])]);
    throw error;
  }
  const [clipFraction, approxKl, valueLoss, entropy] = figureSum ? await figureSum.data() : [0, 0, 0, 0];
  figureSum?.dispose();
  return { grads, clipFraction, approxKl, valueLoss, entropy };
}

/** A helper's chunk as tensors keyed by this model's variable names, in this model's weight order (as variableGrads keys them). */
function partFromHelper(result: ChunkGradient, named: { name: string; tensor: tf.Variable }[]): ChunkPart {
  const grads: tf.NamedTensorMap = {};
  for (const { name, tensor } of named) {
    const values = result.grads[name];
    if (values) grads[tensor.name] = tf.tensor(values, tensor.shape);
  }
  return { grads, figures: tf.tensor1d(result.figures) };
}
