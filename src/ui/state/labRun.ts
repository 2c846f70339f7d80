/**
 * A run as the lab holds it: its config, where it stands, its metrics (as columns: runColumns.ts)
 * and its latest samples.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { StepMetrics } from '../../core/metrics/stepMetrics';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import type { PassAtOneResult } from '../../core/eval/evalReport';
import { SAMPLES_KEPT } from '../../core/archive/runChecks';
import type { RunStatus } from '../../trainerWorker/protocol';
import { columnsFromHistory, type RunColumns } from './runColumns';
import { startForFormat, type StartFrom } from '../../core/archive/startFrom';

export interface LabRun {
  id: string;
  name: string;
  preset: string;
  config: ExperimentConfig;
  status: RunStatus;
  step: number;
  createdAt: number;
  /** Every recorded step's figures, as columns (rows for the export: metricsRows). */
  columns: RunColumns;
  samples: RolloutSample[];
  /** Step of the last checkpoint saved for this run, null before the first. */
  checkpointStep: number | null;
  /** Held-out accuracy at each inference Nmax, once evaluated (the sweep's matrix row). */
  evaluation: Record<number, number> | null;
  /** The sweep that queued this run, if any. */
  sweepId: string | null;
  /** The model its step 0 was. */
  startFrom: StartFrom;
  /** The latest pass@1 evaluation of its checkpoint, if any. */
  passAtOne: PassAtOneResult | null;
  /**
   * Bumped whenever its columns or samples change, for views of the whole run; a chart of the
   * columns alone redraws on their own revision (runColumns.ts).
   */
  revision: number;
}

export interface NewRunFields {
  id: string;
  name: string;
  preset: string;
  config: ExperimentConfig;
  createdAt: number;
  sweepId?: string | null;
  /** The recorded steps as rows (from IndexedDB, a run file, a fork's source). */
  history?: StepMetrics[];
  samples?: RolloutSample[];
  status?: RunStatus;
  checkpointStep?: number | null;
  /** Default: the start the config's format implies (the two must match). */
  startFrom?: StartFrom;
}

export function makeRun(fields: NewRunFields): LabRun {
  const history = fields.history ?? [];
  return {
    id: fields.id,
    name: fields.name,
    preset: fields.preset,
    config: fields.config,
    status: fields.status ?? 'idle',
    step: history.length > 0 ? history[history.length - 1].step : 0,
    createdAt: fields.createdAt,
    columns: columnsFromHistory(history),
    samples: fields.samples ? fields.samples.slice(0, SAMPLES_KEPT) : [],
    checkpointStep: fields.checkpointStep ?? null,
    evaluation: null,
    sweepId: fields.sweepId ?? null,
    startFrom: fields.startFrom ?? startForFormat(fields.config.format),
    passAtOne: null,
    revision: 0,
  };
}

/** A short unique id, time first so ids sort by creation (ids are not part of any experiment's outcome). */
export function newRunId(now: number): string {
  return `run-${now.toString(36)}-${crypto.randomUUID().slice(0, 6)}`;
}

/** `name`, or `name (2)`, `name (3)`, ... : the first that no run in `taken` has, so two runs are never confused in a list. */
export function uniqueRunName(name: string, taken: string[]): string {
  const names = new Set(taken);
  if (!names.has(name)) return name;
  let n = 2;
  while (names.has(`${name} (${n})`)) n++;
  return `${name} (${n})`;
}
