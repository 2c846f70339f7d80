/**
 * A run as files: JSON with its config, seed, the model it started from, per-step metrics (the
 * same StepMetrics objects as the CLI's metrics.jsonl), samples, summary (summariseRun, as in
 * summary.json) and its latest pass@1 evaluation (`npm run eval`'s report); and CSV with one row
 * per step, the scalar metrics as columns, then the step-time split.
 */
import type { ExperimentConfig } from '../../core/experiment';
import { summariseRun, type RunSummary } from '../../core/metrics/runSummary';
import { SCALAR_METRICS, type StepMetrics } from '../../core/metrics/stepMetrics';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import type { PassAtOneResult } from '../state/labRun';
import { metricsRows, type RunColumns } from '../state/runColumns';
import { startForFormat, type StartFrom } from '../state/startFrom';

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
  /** The lab's one record of the metrics; the export writes them as rows. */
  columns: RunColumns;
  samples: RolloutSample[];
  evaluation: Record<number, number> | null;
  /** Default: the start the config's format implies. */
  startFrom?: StartFrom;
  passAtOne?: PassAtOneResult | null;
}

export function runExport(run: ExportableRun): RunExport {
  const metrics = metricsRows(run.columns);
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
