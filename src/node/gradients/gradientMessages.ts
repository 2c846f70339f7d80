/** What the CLI's main thread and its gradient threads (gradientThreads.ts) send each other. */
import type { ExperimentConfig } from '../../core/experiment';
import type { ChunkGradient, ModelWeights, WeightedChunk } from '../../core/rl/gradientHelpers';
import type { NodeBackend } from '../tfBackend';

/** Given to a thread when it starts: the main thread's backend, so that both compute alike. */
export interface GradientThreadData {
  backend: NodeBackend;
}

export interface GradientJob {
  id: number;
  model: ModelWeights;
  chunks: WeightedChunk[];
  config: ExperimentConfig;
}

export type GradientReply = { id: number; results: ChunkGradient[] } | { id: number; error: string };
