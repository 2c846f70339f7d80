/**
 * A run as files: JSON with its config, seed, the model it started from, per-step metrics (the
 * same StepMetrics objects as the CLI's metrics.jsonl), samples, summary (summariseRun, as in
 * summary.json) and its latest pass@1 evaluation (`npm run eval`'s report); and CSV with one row
 * per step, the scalar metrics as columns, then the step-time split.
 */
import type { ExperimentConfig } from '../experiment';
import { summariseRun, type RunSummary } from '../metrics/runSummary';
import { SCALAR_METRICS, type StepMetrics } from '../metrics/stepMetrics';
import type { RolloutSample } from '../rollout/rolloutSample';
import type { PassAtOneResult } from '../eval/evalReport';
import { startForFormat, type StartFrom } from './startFrom';

export const RUN_EXPORT_FORMAT = 'tir-lab-run';

export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  name: string;
  preset: string;
  config: ExperimentConfig;
  seed: number;
  metrics: StepMetrics[];
  samples: RolloutSample[];
  summary: RunSummary;
  /** Held-out accuracy at each inference Nmax, when the run was evaluated. */
  evaluation: Record<number, number> | null;
  startFrom: StartFrom;
  passAtOne: PassAtOneResult | null;
}

export interface ExportableRun {
  name: string;
  preset: string;
  config: ExperimentConfig;
  /** Every recorded step's figures, in step order (the lab's columns as rows: metricsRows). */
  metrics: StepMetrics[];
  samples: RolloutSample[];
  evaluation: Record<number, number> | null;
  /** Default: the start the config's format implies. */
  startFrom?: StartFrom;
  passAtOne?: PassAtOneResult | null;
}

export function runExport(run: ExportableRun): RunExport {
  const { metrics } = run;
  return {
    format: RUN_EXPORT_FORMAT,
    name: run.name,
    preset: run.preset,
    config: run.config,
    seed: run.config.seed,
    metrics,
    samples: run.samples,
    summary: summariseRun(metrics, run.config),
    evaluation: run.evaluation,
    startFrom: run.startFrom ?? startForFormat(run.config.format),
    passAtOne: run.passAtOne ?? null,
  };
}

export const CSV_COLUMNS = ['step', ...SCALAR_METRICS, 'generateSeconds', 'executeSeconds', 'updateSeconds'] as const;

export function runCsv(history: StepMetrics[]): string {
  const rows = history.map((m) =>
    [m.step, ...SCALAR_METRICS.map((name) => m[name]), m.seconds?.generate, m.seconds?.execute, m.seconds?.update]
      .map(csvCell)
      .join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\n') + '\n';
}

/** A number as written, a missing figure as an empty cell. */
function csvCell(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
}

/** A file name from the run's name: letters, digits, dots and dashes only. */
export function exportFileName(runName: string, extension: string): string {
  const base = runName.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'run';
  return `${base}.${extension}`;
}
