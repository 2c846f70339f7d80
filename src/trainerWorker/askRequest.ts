/**
 * What "Ask the model" sends the worker: the question, the settings it is asked with (the knobs:
 * Nmax, temperature, seed, and the run's fences and caps), greedy or sampled, and which model
 * answers. Types only: no tfjs.
 */
import type { ExperimentConfig } from '../core/experiment';
import type { CheckpointBlob } from '../core/run/checkpointBlob';

/** The run the worker holds (its weights now), a checkpoint (a run saved, a start model), or the base model. */
export type AskedModel = { kind: 'run'; runId: string } | { kind: 'checkpoint'; checkpoint: CheckpointBlob } | { kind: 'base' };

export interface AskRequest {
  question: string;
  config: ExperimentConfig;
  /** Always the likeliest next character, instead of sampling at the config's temperature from its seed. */
  greedy: boolean;
  model: AskedModel;
}
