/**
 * The problems of an exported experiment, drawn through the lab's own split: the train problems by
 * trainProblem (the run's kind and tier mix, seeded by the run's seed, never a held-out question) and the
 * test problems as the lab's fixed held-out set.
 */
import type { ExperimentConfig } from '../experiment';
import { Random } from '../random';
import { testSet, trainProblem } from '../tasks/splits';
import { exportedProblem, type ExportedProblem } from './exportedProblem';

export interface ExportSplits {
  train: ExportedProblem[];
  test: ExportedProblem[];
}

/** Train problems the run would see in its steps: one per prompt per step. */
export function defaultTrainSize(config: Pick<ExperimentConfig, 'steps' | 'promptsPerStep'>): number {
  return Math.max(1, config.steps * config.promptsPerStep);
}

export function exportSplits(config: Pick<ExperimentConfig, 'seed' | 'tierMix' | 'kindMix'>, trainSize: number): ExportSplits {
  if (!Number.isInteger(trainSize) || trainSize < 1) throw new Error(`trainSize must be an integer >= 1, got ${trainSize}`);
  const rng = new Random(config.seed);
  const train = Array.from({ length: trainSize }, () => exportedProblem(trainProblem(rng, config)));
  return { train, test: testSet().map(exportedProblem) };
}
