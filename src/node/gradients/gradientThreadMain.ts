/**
 * Inside a gradient thread: its own tfjs on the main thread's backend, computing the chunks it is
 * sent (core/rl/helperGradients.ts) and handing their buffers back, over comlink as the lab's
 * helper workers do (browser/gradientHelper.worker.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/umd/node-adapter';
import type { ExperimentConfig } from '../../core/experiment';
import type { ChunkGradient, ModelWeights, WeightedChunk } from '../../core/rl/gradientHelpers';
import { helperChunkGradients, resultBuffers } from '../../core/rl/helperGradients';
import { useNodeBackend, type NodeBackend } from '../tfBackend';

const started = useNodeBackend((workerData as { backend: NodeBackend }).backend);

const api = {
  /** Resolves once the backend runs; rejects with why it cannot. */
  ready: () => started,
  async chunkGradients(model: ModelWeights, chunks: WeightedChunk[], config: ExperimentConfig): Promise<ChunkGradient[]> {
    await started;
    const results = helperChunkGradients(model, chunks, config);
    return Comlink.transfer(results, resultBuffers(results));
  },
};

export type GradientThreadApi = typeof api;

Comlink.expose(api, nodeEndpoint(parentPort!));
