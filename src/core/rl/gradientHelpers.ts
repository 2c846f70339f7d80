/**
 * The update on more than one thread. A minibatch's chunks (minibatchGradients.ts) are independent
 * until their gradients are summed, so helpers (other threads, each with its own tfjs and the
 * weights sent to it) compute some chunks while this thread computes the rest. Each helper returns
 * every chunk's gradient on its own, and the sum is taken here in chunk order, as one thread takes
 * it: the update is the same, bit for bit, on one thread or several (test/gradientThreads.test.ts).
 * On wasm the second core has nothing else to do during the update: the Python workers it runs wait
 * for the next rollouts.
 */
import type { ExperimentConfig } from '../experiment';
import type { GPTConfig } from '../model/config';
import type { TrainingSequence } from './trainingBatch';

/** A model as sent to a helper: its shape and its weights by name (GPT.namedWeights()). */
export interface ModelWeights {
  config: GPTConfig;
  weights: Record<string, Float32Array>;
}

/** A chunk of a minibatch and its share of the minibatch's policy tokens (the weight of its objective). */
export interface WeightedChunk {
  sequences: TrainingSequence[];
  share: number;
}

/**
 * What one chunk adds to the minibatch's gradient: its weighted objective's gradient by weight name
 * (as GPT.namedWeights() names them; a weight the objective does not reach, like the value head
 * without a critic, is absent), and its weighted figures (clip fraction, approximate KL, value loss,
 * entropy).
 */
export interface ChunkGradient {
  grads: Record<string, Float32Array>;
  figures: Float32Array;
}

/**
 * Another thread that computes chunks' gradients for the model it is sent (helperGradients.ts there;
 * node/gradients/ in the CLI, browser/gradientWorkers.ts in the lab).
 */
export interface GradientHelper {
  chunkGradients(model: ModelWeights, chunks: WeightedChunk[], config: ExperimentConfig): Promise<ChunkGradient[]>;
}

/** Helpers started for a trainer, and how to stop them. */
export interface GradientHelperSet {
  helpers: readonly GradientHelper[];
  close(): Promise<void> | void;
}

/**
 * A helper's end, for its host to reject from when the helper fails, stops or is closed: a call
 * over comlink to a helper that is gone would otherwise wait forever. An end with no call waiting
 * is not an unhandled rejection: the next call sees it.
 */
export function helperEnd(): { ended: Promise<never>; end: (reason: Error) => void } {
  let end: (reason: Error) => void = () => undefined;
  const ended = new Promise<never>((_, reject) => (end = reject));
  ended.catch(() => undefined);
  return { ended, end };
}

/**
 * Which thread computes each chunk, from the chunks' costs: 0 for this thread, h + 1 for helper h.
 * Longest first, each to the thread with the least work so far; a helper starts with `handOff`, the
 * cost of sending it the weights and taking its gradients back. Ties go to the lower thread, so
 * one machine always splits a minibatch the same way (the split changes no figure either way).
 */
export function chunkThreads(costs: readonly number[], threads: number, handOff: number): number[] {
  const load = Array.from({ length: Math.max(1, threads) }, (_, thread) => (thread === 0 ? 0 : handOff));
  const thread = new Array<number>(costs.length).fill(0);
  const longestFirst = costs.map((_, i) => i).sort((a, b) => costs[b] - costs[a] || a - b);
  for (const chunk of longestFirst) {
    let least = 0;
    for (let t = 1; t < load.length; t++) if (load[t] < load[least]) least = t;
    thread[chunk] = least;
    load[least] += costs[chunk];
  }
  return thread;
}
