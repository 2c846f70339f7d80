/**
 * A helper thread's side of gradientHelpers.ts: a model at the weights it was sent, and each chunk's
 * gradient by chunkGradient (the code the main thread runs for its own chunks), read back by weight
 * name into arrays of its own (a backend's read may be its own storage), so their buffers can be
 * transferred.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import { GPT } from '../model/gpt';
import type { ChunkGradient, ModelWeights, WeightedChunk } from './gradientHelpers';
import { chunkGradient } from './minibatchGradients';

export function helperChunkGradients(sent: ModelWeights, chunks: WeightedChunk[], config: ExperimentConfig): ChunkGradient[] {
  const model = GPT.fromWeights(sent.config, sent.weights);
  try {
    const weightName = new Map(model.namedWeights().map(({ name, tensor }) => [tensor.name, name]));
    return chunks.map((chunk) => {
      const part = chunkGradient(model, chunk, config);
      const grads: Record<string, Float32Array> = {};
      for (const [variable, gradient] of Object.entries(part.grads)) grads[weightName.get(variable)!] = (gradient.dataSync() as Float32Array).slice();
      const figures = (part.figures.dataSync() as Float32Array).slice();
      tf.dispose([...Object.values(part.grads), part.figures]);
      return { grads, figures };
    });
  } finally {
    model.dispose();
  }
}

/** The results' buffers, to hand over to the main thread rather than copy. */
function resultBuffers(results: ChunkGradient[]): ArrayBuffer[] {
  return results.flatMap((result) => [...Object.values(result.grads), result.figures].map((values) => values.buffer as ArrayBuffer));
}

/**
 * What a helper exposes, a Node gradient thread and a browser gradient worker alike: `ready`
 * resolves once `started` (its backend) does, or rejects with why not; `chunkGradients` computes
 * the chunks it is sent. `transfer` marks the results' buffers to be handed over, not copied
 * (Comlink.transfer: the engine knows no comlink).
 */
export function gradientHelperApi(started: Promise<void>, transfer: (results: ChunkGradient[], buffers: ArrayBuffer[]) => ChunkGradient[]) {
  return {
    ready: () => started,
    async chunkGradients(model: ModelWeights, chunks: WeightedChunk[], config: ExperimentConfig): Promise<ChunkGradient[]> {
      await started;
      const results = helperChunkGradients(model, chunks, config);
      return transfer(results, resultBuffers(results));
    },
  };
}

export type GradientHelperApi = ReturnType<typeof gradientHelperApi>;
