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
export function resultBuffers(results: ChunkGradient[]): ArrayBuffer[] {
  return results.flatMap((result) => [...Object.values(result.grads), result.figures].map((values) => values.buffer as ArrayBuffer));
}
