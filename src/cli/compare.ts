/**
 * npm run compare -- [--reference DIR] [--target X] [--json] [--eval FILE]... DIR|FILE...
 *
 * Runs side by side (src/core/metrics/runComparison.ts): a markdown table per run and per arm (runs
 * whose configs differ only in the seed), with the first step each run's code-call frequency
 * reached the reference run's final one (the first run is the reference unless told) and the
 * self-correction share of the start policy beside the final one; the final calls per answer and
 * single-call share by problem depth; and the train-Nmax by eval-Nmax pass@1 matrix from
 * `npm run eval` reports, with each seed's gains from one trained Nmax to the next, split by the
 * depth of the problems, and, given several seeds, their mean over seeds
 * (src/core/metrics/evalMatrix.ts, printed by evalMatrixTables.ts). A DIR is what `npm run train`
 * writes (metrics.jsonl; the config from summary.json, else checkpoint/model.json); its eval.json,
 * if any, joins the matrix. A FILE is a lab run export (.json; its pass@1 evaluation, if any, joins
 * the matrix as its eval.json would) or an eval report. --json prints one JSON object instead of the
 * tables.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { compareRuns, type ArmRow, type ComparedRun, type RunComparison, type RunRow } from '../core/metrics/runComparison';
import { evalMatrix, type EvalMatrix, type EvalMatrixInput, type EvalReportBlocks } from '../core/metrics/evalMatrix';
import { FINAL_WINDOW, START_WINDOW } from '../core/metrics/runSummary';
import { emptyStepMetrics, type StepMetrics } from '../core/metrics/stepMetrics';
import { decimalNumber } from '../core/experiment';
import { RUN_EXPORT_FORMAT } from '../core/archive/runExport';
import { isStartFrom, START_FROM_CHOICES, START_MODELS, startForFormat, type StartFrom } from '../core/archive/startFrom';
import { isDepth, MAX_DEPTH } from '../core/tasks/problem';
import { argsOrExitCode, DEFAULT_BASE_CHECKPOINT, UsageError } from './cliArgs';
import { evalSections } from './evalMatrixTables';
import { fixed, table } from './markdownTable';

const USAGE = `usage: npm run compare -- [--reference DIR] [--target X] [--json] [--eval FILE]... DIR|FILE...
  DIR          a run directory written by npm run train (metrics.jsonl, summary.json, checkpoint/)
  FILE         a run exported from the lab (.json, with its pass@1 evaluation if any), or an npm run eval report
  --reference  the run whose final code-call frequency is the target (default: the first run)
  --target X   the code-call frequency to reach instead (0..1)
  --eval FILE  an npm run eval report for the train-Nmax x eval-Nmax matrix (repeatable)
  --json       one JSON object instead of markdown tables`;

/** A run directory or file that cannot be read as asked: the CLI says so and exits 2. */
export class InputError extends Error {}

export interface CompareArgs {
  inputs: string[];
  evalFiles: string[];
  reference: string | null;
  target: number | null;
  json: boolean;
}

export function parseCompareArgs(argv: string[]): CompareArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        reference: { type: 'string' },
        target: { type: 'string' },
        eval: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  let target: number | null = null;
  if (values.target !== undefined) {
    target = decimalNumber(values.target);
    if (target === null || !(target >= 0 && target <= 1)) throw new UsageError(`--target needs a number from 0 to 1, got '${values.target}'`);
  }
  const reference = values.reference ?? null;
  const evalFiles = values.eval ?? [];
  if (positionals.length === 0 && reference === null && evalFiles.length === 0) throw new UsageError('give at least one run directory or --eval FILE');
  return { inputs: positionals, evalFiles, reference, target, json: values.json ?? false };
}

/** The whole report as the CLI prints it (markdown, or JSON with --json). */
export function compareCommand(args: CompareArgs): string {
  const named = (path: string) => args.reference !== null && trimSlash(path) === trimSlash(args.reference);
  const inputs = args.reference !== null && !args.inputs.some(named) ? [args.reference, ...args.inputs] : args.inputs;
  const runs: ComparedRun[] = [];
  const evals: EvalMatrixInput[] = [];
  let reference = 0;
  for (const input of inputs) {
    const read = readInput(input);
    if (named(input)) {
      if (!read.run) throw new InputError(`the reference ${input} is not a run`);
      reference = runs.length;
    }
    if (read.run) runs.push(read.run);
    if (read.evalReport) evals.push(read.evalReport);
  }
  for (const file of args.evalFiles) {
    const read = readInput(file);
    if (!read.evalReport || read.run) throw new InputError(`${file} is not an npm run eval report (it has no blocks)`);
    evals.push(read.evalReport);
  }
  const comparison = compareRuns(runs, { reference, target: args.target });
  const matrix = evals.length > 0 ? evalMatrix(evals) : null;
  if (args.json) return `${JSON.stringify({ finalWindow: FINAL_WINDOW, ...comparison, evalMatrix: matrix }, null, 2)}\n`;
  return markdownReport(comparison, matrix);
}

// ---- reading runs and reports ----------------------------------------------------------------

interface ReadInput {
  run?: ComparedRun;
  evalReport?: EvalMatrixInput;
}

function readInput(path: string): ReadInput {
  if (!existsSync(path)) throw new InputError(`no run directory or file at ${path}`);
  if (statSync(path).isDirectory()) {
    const evalPath = join(path, 'eval.json');
    return { run: readRunDir(path), evalReport: existsSync(evalPath) ? evalInput(evalPath, readJson(evalPath)) : undefined };
  }
  const json = readJson(path) as Record<string, unknown>;
  if (json && json.format === RUN_EXPORT_FORMAT && Array.isArray(json.metrics)) {
    if (json.config !== undefined && (typeof json.config !== 'object' || json.config === null || Array.isArray(json.config))) {
      throw new InputError(`${path}: its config is not an object`);
    }
    const config = (json.config ?? {}) as ComparedRun['config'];
    const metrics = (json.metrics as unknown[]).map((line, i) => {
      try {
        return withAllFigures(line);
      } catch (error) {
        throw new InputError(`${path}: metrics[${i}]: ${(error as Error).message}`);
      }
    });
    // The lab names its start model (a file of version 1 by its format, as the lab's import reads it); a run directory gives its path.
    const startFrom = isStartFrom(json.startFrom) ? json.startFrom : startForFormat(config.format ?? 'zerotir');
    const run = { name: String(json.name ?? basename(path)), config, start: shippedStartPath(startFrom), metrics };
    const passAtOne = json.passAtOne as { report?: unknown } | null | undefined;
    return { run, evalReport: passAtOne?.report === undefined ? undefined : evalInput(`${path} (its pass@1 evaluation)`, passAtOne.report, config) };
  }
  if (json && Array.isArray(json.blocks)) return { evalReport: evalInput(path, json) };
  throw new InputError(`${path} is neither a run exported from the lab nor an npm run eval report`);
}

/** metrics.jsonl, and the config and start model from summary.json or else the checkpoint's meta. */
export function readRunDir(dir: string): ComparedRun {
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!existsSync(metricsPath)) throw new InputError(`${dir} has no metrics.jsonl (is it a run directory written by npm run train?)`);
  const metrics = readFileSync(metricsPath, 'utf8')
    .split('\n')
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => {
      try {
        return withAllFigures(JSON.parse(line) as Partial<StepMetrics>);
      } catch (error) {
        throw new InputError(`${metricsPath} line ${number} is not valid JSON: ${(error as Error).message}`);
      }
    });
  const summaryPath = join(dir, 'summary.json');
  const manifestPath = join(dir, 'checkpoint', 'model.json');
  let config: ComparedRun['config'] = {};
  let start: string | null = null;
  if (existsSync(summaryPath)) {
    const summary = readJson(summaryPath) as { config?: ComparedRun['config']; base?: string };
    config = summary.config ?? {};
    start = summary.base ?? null;
  } else if (existsSync(manifestPath)) {
    const meta = ((readJson(manifestPath) as { meta?: { config?: ComparedRun['config']; base?: { path?: string } } }).meta ?? {});
    config = meta.config ?? {};
    start = meta.base?.path ?? null;
  }
  return { name: trimSlash(dir), config, start: start === null ? null : asShippedStart(start), metrics };
}

/** Where a shipped start model is, as npm run train names it (--base public/models/base). */
function shippedStartPath(start: StartFrom): string {
  return join(dirname(DEFAULT_BASE_CHECKPOINT), START_MODELS[start].folder);
}

/** A start path that is a shipped start model, written as the lab's exports are read: `./public/models/base/` as `public/models/base`. */
function asShippedStart(path: string): string {
  const shipped = START_FROM_CHOICES.map(shippedStartPath).find((candidate) => resolve(candidate) === resolve(path));
  return shipped ?? path;
}

/** An older metrics.jsonl lacks the newer figures: they are null (not measured), not missing. */
function withAllFigures(line: unknown): StepMetrics {
  const step = typeof line === 'object' && line !== null ? (line as Partial<StepMetrics>).step : undefined;
  if (typeof step !== 'number') throw new InputError(`a metrics line has no step: ${String(JSON.stringify(line)).slice(0, 80)}`);
  return { ...emptyStepMetrics(step), ...(line as Partial<StepMetrics>) };
}

/**
 * A report's row: labelled by the checkpoint it evaluated, with the Nmax and seed that checkpoint
 * trained at: `trainedWith` where the caller knows them (a lab export's config), else the
 * checkpoint's meta.
 */
function evalInput(path: string, json: unknown, trainedWith?: { nmax?: number; seed?: number }): EvalMatrixInput {
  const report = (typeof json === 'object' && json !== null ? json : {}) as EvalReportBlocks & { checkpoint?: string };
  if (!Array.isArray(report.blocks) || report.blocks.some((b) => typeof b.nmax !== 'number' || typeof b['pass@1'] !== 'number')) {
    throw new InputError(`${path} is not an npm run eval report (each block needs nmax and pass@1)`);
  }
  if (report.problemDepths !== undefined && !(Array.isArray(report.problemDepths) && report.problemDepths.every(isDepth))) {
    throw new InputError(`${path}: problemDepths must list a depth from 1 to ${MAX_DEPTH} for each problem`);
  }
  const config = trainedWith ?? checkpointConfig(report.checkpoint);
  return { label: report.checkpoint ?? path, trainNmax: config.nmax ?? null, seed: config.seed ?? null, report };
}

function checkpointConfig(checkpoint: string | undefined): { nmax?: number; seed?: number } {
  const manifest = checkpoint ? join(checkpoint, 'model.json') : null;
  return manifest && existsSync(manifest) ? ((readJson(manifest) as { meta?: { config?: { nmax?: number; seed?: number } } }).meta?.config ?? {}) : {};
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, '');
}

// ---- markdown --------------------------------------------------------------------------------

/** Steps: whole numbers as such, a mean over seeds with one decimal. */
function stepFigure(x: number | null): string {
  return x === null ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(1);
}

// "final": the mean of the last FINAL_WINDOW measured steps, as everywhere (runSummary.ts).
const FIGURE_HEAD = [
  'steps',
  'code freq (final)',
  'reaches target at',
  'test acc (last test)',
  'test acc (best)',
  `acc (first ${FINAL_WINDOW})`,
  'acc (final)',
  'ρ(step, acc)',
  'single-call share (final)',
  'code pass rate (final)',
  'length (final)',
  `self-correction share (first ${START_WINDOW})`,
  'self-correction share (final)',
];

function figureCells(row: RunRow | ArmRow, reached: string): string[] {
  return [
    stepFigure(row.steps),
    fixed(row.finalCodeCallFrequency),
    reached,
    fixed(row.finalTestAccuracy),
    fixed(row.bestTestAccuracy),
    fixed(row.accuracyFirst10),
    fixed(row.accuracyLast10),
    fixed(row.accuracyRho),
    fixed(row.finalSingleCallShare),
    fixed(row.finalCodePassRate),
    fixed(row.finalResponseLength, 1),
    fixed(row.selfCorrectionShareStart),
    fixed(row.finalSelfCorrectionShare),
  ];
}

/** Final calls per answer and single-call share at each depth some run measured; null when none did. */
function depthTable(runs: RunRow[]): string | null {
  const depths = [...Array(MAX_DEPTH).keys()].filter((d) => runs.some((r) => r.finalCallsPerResponseByDepth[d] !== null));
  if (depths.length === 0) return null;
  return [
    '## By depth (final): calls per answer and single-call share of the problems whose step-by-step solution takes d calls',
    '',
    table(
      ['run', ...depths.map((d) => `calls, d ${d + 1}`), ...depths.map((d) => `single-call share, d ${d + 1}`)],
      runs.map((r) => [r.name, ...depths.map((d) => fixed(r.finalCallsPerResponseByDepth[d], 2)), ...depths.map((d) => fixed(r.finalSingleCallShareByDepth[d]))]),
    ),
  ].join('\n');
}

export function markdownReport(comparison: RunComparison, matrix: EvalMatrix | null): string {
  const sections: string[] = [];
  if (comparison.runs.length > 0) sections.push(runTables(comparison));
  const byDepth = depthTable(comparison.runs);
  if (byDepth !== null) sections.push(byDepth);
  if (matrix) sections.push(...evalSections(matrix));
  return `${sections.join('\n\n')}\n`;
}

function runTables({ target, reference, differences, runs, arms }: RunComparison): string {
  const targetText = target === null ? 'none' : `${target.toFixed(3)}${reference ? ` (the final code-call frequency of ${reference})` : ' (given)'}`;
  const unknown = arms.filter((a) => a.label.startsWith('config unknown')).length;
  const compared = [
    differences.length > 0
      ? `Arms differ in: ${differences.map((d) => `${d.field}: ${[...new Set(d.values)].join(' vs ')}`).join('; ')}.`
      : arms.length === 1
        ? 'The runs differ only in the seed.'
        : 'The known configs do not differ.',
    unknown > 0 ? `${unknown} run(s) without a known config (no summary.json or checkpoint yet: still training?), each an arm of its own.` : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  return [
    '## Runs',
    '',
    `Final = mean of the last ${FINAL_WINDOW} measured steps; test acc = greedy held-out accuracy. Target code-call frequency: ${targetText}.`,
    `Self-correction share (first ${START_WINDOW}) = mean of the first ${START_WINDOW} measured steps, the start policy's (step 1 is sampled before any update).`,
    compared,
    '',
    table(
      ['run', 'arm', 'seed', ...FIGURE_HEAD],
      runs.map((r) => [r.name, arms[r.arm].label, r.seed === null ? '?' : String(r.seed), ...figureCells(r, stepFigure(r.reachesTargetAt))]),
    ),
    '',
    '## Arms (means over seeds)',
    '',
    table(
      ['arm', 'n', 'seeds', ...FIGURE_HEAD],
      arms.map((a) => [a.label, String(a.n), a.seeds.map((s) => s ?? '?').join(','), ...figureCells(a, `${stepFigure(a.reachesTargetAt)} (${a.reachedTarget}/${a.n} reached)`)]),
    ),
  ].join('\n');
}

function main(argv: string[]): number {
  const args = argsOrExitCode('compare', USAGE, () => parseCompareArgs(argv));
  if (typeof args === 'number') return args;
  try {
    process.stdout.write(compareCommand(args));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`compare: ${error.message}\n`);
    return 2;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));
