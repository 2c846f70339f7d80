/**
 * Runs side by side, as the papers compare them: one row per run (where it ended, and the first
 * step its code-call frequency reached a target: ReTool's "tool use arrives in fewer RL steps"),
 * one row per arm (the runs whose configs differ only in the seed, averaged) and the config fields
 * that tell the arms apart. The train-Nmax by eval-Nmax matrix of `npm run eval` reports beside
 * them is evalMatrix.ts.
 */
import type { ExperimentConfig } from '../experiment';
import { MAX_DEPTH } from '../tasks/problem';
import { meanOrNull } from './means';
import { FINAL_WINDOW, summariseRun } from './runSummary';
import type { ScalarMetric, StepMetrics } from './stepMetrics';

export interface ComparedRun {
  name: string;
  /** The run's config, or the part of it that is known. */
  config: Partial<ExperimentConfig>;
  /** The checkpoint RL started from (the base model, or a cold-start SFT model), when known. */
  start?: string | null;
  metrics: StepMetrics[];
}

export interface RunFigures {
  /** Trained steps (step 0, the base model's test, is not one). */
  steps: number;
  finalCodeCallFrequency: number | null;
  /** First step with codeCallFrequency >= the target; null if never (or no target). */
  reachesTargetAt: number | null;
  /** The last held-out test accuracy measured, and the best. */
  finalTestAccuracy: number | null;
  bestTestAccuracy: number | null;
  /** Batch accuracy: mean of the first and the last FINAL_WINDOW measured steps, and Spearman rho against step. */
  accuracyFirst10: number | null;
  accuracyLast10: number | null;
  accuracyRho: number | null;
  finalSingleCallShare: number | null;
  finalCodePassRate: number | null;
  finalResponseLength: number | null;
  /** selfCorrectionShare: the start policy's (mean of the first START_WINDOW measured steps) and the final one. */
  selfCorrectionShareStart: number | null;
  finalSelfCorrectionShare: number | null;
}

export type FigureName = keyof RunFigures;

/** Final single-call share and calls per answer for each depth, index d - 1 for depth d (null where never measured). */
export interface DepthFigures {
  finalSingleCallShareByDepth: (number | null)[];
  finalCallsPerResponseByDepth: (number | null)[];
}

export interface RunRow extends RunFigures, DepthFigures {
  name: string;
  seed: number | null;
  /** Index into RunComparison.arms. */
  arm: number;
}

export interface ArmRow extends Record<FigureName, number | null>, DepthFigures {
  /** What sets the arm apart (its values of the differing fields), e.g. "nmax 0". */
  label: string;
  runs: string[];
  seeds: (number | null)[];
  n: number;
  /** How many of the arm's runs reached the target; reachesTargetAt is the mean over those. */
  reachedTarget: number;
}

/** A field whose value is not the same in every arm; values[i] is arm i's ('?' where unknown). */
export interface ConfigDifference {
  field: string;
  values: string[];
}

export interface RunComparison {
  /** The run whose final code-call frequency is the target (null when the target was given). */
  reference: string | null;
  target: number | null;
  differences: ConfigDifference[];
  runs: RunRow[];
  arms: ArmRow[];
}

export interface ComparisonOptions {
  /** Index of the reference run in `runs`; default 0. Ignored when `target` is given. */
  reference?: number;
  target?: number | null;
}

export function compareRuns(runs: ComparedRun[], options: ComparisonOptions = {}): RunComparison {
  const referenceIndex = options.reference ?? 0;
  const given = options.target ?? null;
  if (given === null && runs.length > 0 && !(referenceIndex >= 0 && referenceIndex < runs.length)) {
    throw new RangeError(`reference ${referenceIndex} is not one of the ${runs.length} runs`);
  }
  const reference = given === null && runs.length > 0 ? runs[referenceIndex] : null;
  const target = given ?? (reference ? finalMean(reference.metrics, 'codeCallFrequency') : null);

  const armOf = groupArms(runs);
  const armCount = Math.max(0, ...armOf.map((a) => a + 1));
  const members = Array.from({ length: armCount }, (_, a) => runs.filter((_, i) => armOf[i] === a));
  const differences = configDifferences(members.map((m) => m[0]));
  const rows: RunRow[] = runs.map((run, i) => ({
    name: run.name,
    seed: run.config.seed ?? null,
    arm: armOf[i],
    ...runFigures(run.metrics, target),
    ...depthFigures(run.metrics),
  }));
  const arms = members.map((m, a) => armRow(rows.filter((r) => r.arm === a), armLabel(differences, a, m[0], members.length)));
  return { reference: reference?.name ?? null, target, differences, runs: rows, arms };
}

export function runFigures(metrics: StepMetrics[], target: number | null): RunFigures {
  const summary = summariseRun(metrics);
  const accuracy = summary.metrics.accuracy;
  const selfCorrection = summary.selfCorrectionShare;
  const tests = measured(metrics, 'testAccuracy').map((m) => m.testAccuracy as number);
  return {
    steps: metrics.filter((m) => m.step > 0).length,
    finalCodeCallFrequency: finalMean(metrics, 'codeCallFrequency'),
    reachesTargetAt: target === null ? null : firstStepReaching(metrics, 'codeCallFrequency', target),
    finalTestAccuracy: tests.length > 0 ? tests[tests.length - 1] : null,
    bestTestAccuracy: tests.length > 0 ? Math.max(...tests) : null,
    accuracyFirst10: accuracy.first10,
    accuracyLast10: accuracy.last10,
    accuracyRho: accuracy.spearmanRho,
    finalSingleCallShare: finalMean(metrics, 'singleCallShare'),
    finalCodePassRate: finalMean(metrics, 'codePassRate'),
    finalResponseLength: finalMean(metrics, 'responseLength'),
    selfCorrectionShareStart: selfCorrection.start,
    finalSelfCorrectionShare: selfCorrection.final,
  };
}

/** Each depth's final figure: the mean of its last FINAL_WINDOW measured values, as finalMean. */
export function depthFigures(metrics: StepMetrics[]): DepthFigures {
  const finalAt = (column: 'singleCallShareByDepth' | 'callsPerResponseByDepth') =>
    Array.from({ length: MAX_DEPTH }, (_, d) =>
      meanOrNull(
        metrics
          .map((m) => m[column]?.[d])
          .filter((x): x is number => typeof x === 'number' && Number.isFinite(x))
          .slice(-FINAL_WINDOW),
      ),
    );
  return { finalSingleCallShareByDepth: finalAt('singleCallShareByDepth'), finalCallsPerResponseByDepth: finalAt('callsPerResponseByDepth') };
}

/** A figure's final value: the mean of its last FINAL_WINDOW measured values; null if it was never measured. */
export function finalMean(metrics: StepMetrics[], metric: ScalarMetric): number | null {
  return meanOrNull(
    measured(metrics, metric)
      .slice(-FINAL_WINDOW)
      .map((m) => m[metric] as number),
  );
}

/** The first step whose figure is at least `target`, or null. */
export function firstStepReaching(metrics: StepMetrics[], metric: ScalarMetric, target: number): number | null {
  return measured(metrics, metric).find((m) => (m[metric] as number) >= target)?.step ?? null;
}

/**
 * Arm index of each run: runs whose configs (and start models) are equal except the seed share
 * one, numbered in order of first appearance. A run with no known config is an arm of its own.
 */
export function groupArms(runs: ComparedRun[]): number[] {
  const keys: string[] = [];
  return runs.map((run, i) => {
    const { seed: _seed, ...rest } = run.config;
    const key = Object.keys(run.config).length === 0 ? `unknown config #${i}` : canonical({ ...rest, start: run.start ?? null });
    const known = keys.indexOf(key);
    if (known >= 0) return known;
    keys.push(key);
    return keys.length - 1;
  });
}

/**
 * The fields (config fields but the seed, then the start model) whose known values are not all
 * equal across the given runs, one value per run. A config field known in only one run does not
 * count; the start model does, among runs whose config is known: groupArms parts a run whose start
 * is unknown from one whose start is known, so the report must name it.
 */
export function configDifferences(representatives: ComparedRun[]): ConfigDifference[] {
  const fields: string[] = [];
  for (const run of representatives) for (const field of Object.keys(run.config)) if (field !== 'seed' && !fields.includes(field)) fields.push(field);
  fields.push('start');
  const differences: ConfigDifference[] = [];
  for (const field of fields) {
    const raw = representatives.map((run) => (field === 'start' ? run.start : (run.config as Record<string, unknown>)[field]));
    const known =
      field === 'start'
        ? representatives.filter((run) => Object.keys(run.config).length > 0).map((run) => canonical(run.start ?? null))
        : raw.filter((v) => v !== undefined && v !== null).map(canonical);
    if (known.length < 2 || known.every((v) => v === known[0])) continue;
    differences.push({ field, values: raw.map(shownValue) });
  }
  return differences;
}

/** The arm's values of the differing fields; its first run's name when nothing known tells the arms apart. */
function armLabel(differences: ConfigDifference[], arm: number, representative: ComparedRun, armCount: number): string {
  if (Object.keys(representative.config).length === 0) return `config unknown (${representative.name})`;
  if (differences.length > 0) return differences.map((d) => `${d.field} ${d.values[arm]}`).join(', ');
  return armCount === 1 ? 'same config' : representative.name;
}

const FIGURES: FigureName[] = [
  'steps',
  'finalCodeCallFrequency',
  'reachesTargetAt',
  'finalTestAccuracy',
  'bestTestAccuracy',
  'accuracyFirst10',
  'accuracyLast10',
  'accuracyRho',
  'finalSingleCallShare',
  'finalCodePassRate',
  'finalResponseLength',
  'selfCorrectionShareStart',
  'finalSelfCorrectionShare',
];

/** Each figure's mean over the arm's runs that have it (null if none has). */
function armRow(rows: RunRow[], label: string): ArmRow {
  const means = Object.fromEntries(
    FIGURES.map((figure) => [figure, meanOrNull(rows.map((r) => r[figure]).filter((v): v is number => v !== null))]),
  ) as Record<FigureName, number | null>;
  const depthMean = (column: keyof DepthFigures) =>
    Array.from({ length: MAX_DEPTH }, (_, d) => meanOrNull(rows.map((r) => r[column][d]).filter((v): v is number => v !== null)));
  return {
    ...means,
    finalSingleCallShareByDepth: depthMean('finalSingleCallShareByDepth'),
    finalCallsPerResponseByDepth: depthMean('finalCallsPerResponseByDepth'),
    label,
    runs: rows.map((r) => r.name),
    seeds: rows.map((r) => r.seed),
    n: rows.length,
    reachedTarget: rows.filter((r) => r.reachesTargetAt !== null).length,
  };
}

function measured(metrics: StepMetrics[], metric: ScalarMetric): StepMetrics[] {
  return metrics.filter((m) => typeof m[metric] === 'number' && Number.isFinite(m[metric]));
}

/** JSON with object keys sorted, so equal configs give equal strings whatever their key order. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

function shownValue(value: unknown): string {
  if (value === undefined || value === null) return '?';
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).map(String).join('/');
  return String(value);
}
