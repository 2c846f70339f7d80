/**
 * Everything a run holds that the lab draws, checked field by field with its size bounded, wherever
 * it comes from: a run file, or a record IndexedDB kept from this or an older lab. One value of the
 * wrong type (a segment's text that is a number, `calls: [null]`, an object as a tier) or of an
 * absurd size (a million rows, a 20 MB name) would otherwise break the page on every visit, so each
 * is refused with its place named. Each check returns a fresh value holding only the known fields;
 * a field added after a run was saved (a figure, a kind) reads as "not measured".
 */
import { configErrors, EXPERIMENT_PROPERTIES, NUMERIC_BOUNDS, withSavedConfigDefaults, type ExperimentConfig } from '../experiment';
import type { EvalBlock, EvalReport, PassAtOneResult } from '../eval/evalReport';
import { TOOL_FORMATS, type ToolFormatName } from '../rollout/formats';
import { emptyStepMetrics, SCALAR_METRICS, type StepMetrics } from '../metrics/stepMetrics';
import type { RolloutSample, SampleSegment } from '../rollout/rolloutSample';
import { isDepth, KINDS, MAX_DEPTH, TIERS, type Kind, type Tier } from '../tasks/problem';
import { isObject } from '../jsonValue';

/** Samples a run keeps, newest first: the lab's inspector and a run file hold at most these. */
export const SAMPLES_KEPT = 48;

/**
 * The largest sizes a run may have. Each is well above what a run of the allowed knobs makes, so a
 * real run never meets one; past them a value can only be damage or an attack.
 */
export const RUN_LIMITS = {
  /** Characters of a run's name, preset name or id: the lab names a run by its preset, Nmax, algorithm and seed. */
  name: 200,
  /** Recorded steps: one per step of the largest step budget, and step 0. */
  rows: NUMERIC_BOUNDS.steps[1] + 1,
  /** A step's number: no run trains past the largest step budget. */
  step: NUMERIC_BOUNDS.steps[1],
  samples: SAMPLES_KEPT,
  /**
   * Characters of a prompt, an answer, a call's code or its error type. An answer is at most
   * MAX_RESPONSE_TOKENS (432) tokens of one character, Python output included; a prompt is shorter.
   */
  text: 100_000,
  /** Characters of a short label: a tier, a family. */
  label: 200,
  /** Characters of what a pass@1 report names as its model: a run's name and step, or a path. */
  checkpointName: 1_000,
  /** Segments and calls of one answer: a segment takes at least one of its 432 tokens, a call its two fences (12 or more). */
  segments: 1_000,
  calls: 256,
  /** Entries of a calls histogram (0 to `calls` calls). */
  histogram: 257,
  families: 256,
  /** Evaluation blocks (one per Nmax) and problems of a pass@1 report. */
  blocks: NUMERIC_BOUNDS.nmax[1] + 1,
  problems: 100_000,
} as const;

/** A value refused, named by where it is in the run. */
export class RunDataError extends Error {}

function refuse(path: string, what: string): never {
  throw new RunDataError(`${path} ${what}`);
}

export function record(value: unknown, path: string): Record<string, unknown> {
  if (!isObject(value)) refuse(path, 'is not an object');
  return value;
}

export function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) refuse(path, 'is not a list');
  if (value.length > max) refuse(path, `has ${value.length} entries, more than the ${max} a run can have`);
  return value;
}

export function text(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string') refuse(path, 'is not text');
  if (value.length > max) refuse(path, `is ${value.length} characters long, more than ${max}`);
  return value;
}

/** Text or null. */
function textOrNull(value: unknown, path: string, max: number): string | null {
  return value === null ? null : text(value, path, max);
}

export function count(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(path, 'is not a whole number of 0 or more');
  return value;
}

/** A whole number from 0 to `max`: a step, an Nmax. */
function upTo(value: unknown, path: string, max: number): number {
  const n = count(value, path);
  if (n > max) refuse(path, `is ${n}, more than ${max}`);
  return n;
}

export function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(path, 'is not a number');
  return value;
}

function bool(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') refuse(path, 'is not true or false');
  return value;
}

/** A figure: a number, or null (or absent) for "not measured"; NaN and infinities read as null, as charts draw them. */
function figure(value: unknown, path: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number') refuse(path, 'is not a number');
  return Number.isFinite(value) ? value : null;
}

/** Responses by their number of calls: counts. */
function histogram(value: unknown, path: string): number[] {
  return list(value, path, RUN_LIMITS.histogram).map((n, i) => count(n, `${path}[${i}]`));
}

/** A figure per depth 1..MAX_DEPTH; absent (a record from before them) reads as not measured at any depth. */
function depthFigures(value: unknown, path: string): (number | null)[] {
  if (value === null || value === undefined) return new Array<number | null>(MAX_DEPTH).fill(null);
  const figures = list(value, path, MAX_DEPTH).map((x, i) => figure(x, `${path}[${i}]`));
  return [...figures, ...new Array<number | null>(MAX_DEPTH - figures.length).fill(null)];
}

function depth(value: unknown, path: string): number {
  if (!isDepth(value)) refuse(path, `is not a depth from 1 to ${MAX_DEPTH}`);
  return value;
}

/** Figures keyed by the names in `keys`, a missing one null (a kind added after the record was made). */
function keyedFigures<K extends string>(value: unknown, path: string, keys: readonly K[]): Record<K, number | null> {
  const figures = record(value, path);
  return Object.fromEntries(keys.map((key) => [key, figure(Object.hasOwn(figures, key) ? figures[key] : null, `${path}.${key}`)])) as Record<K, number | null>;
}

function familyFigures(value: unknown, path: string): Record<string, number> {
  const entries = Object.entries(record(value, path));
  if (entries.length > RUN_LIMITS.families) refuse(path, `has ${entries.length} families, more than ${RUN_LIMITS.families}`);
  return Object.fromEntries(entries.map(([family, x]) => [text(family, `${path} family name`, RUN_LIMITS.label), finite(x, `${path}.${family}`)]));
}

/** One recorded step: every figure a number or null, the histogram and the per-kind and per-family figures well formed. */
export function checkStepMetrics(value: unknown, path: string): StepMetrics {
  const entry = record(value, path);
  const metrics = emptyStepMetrics(upTo(entry.step, `${path}.step`, RUN_LIMITS.step));
  for (const name of SCALAR_METRICS) metrics[name] = figure(entry[name], `${path}.${name}`);
  if (entry.seconds !== null && entry.seconds !== undefined) {
    const seconds = record(entry.seconds, `${path}.seconds`);
    metrics.seconds = { generate: finite(seconds.generate, `${path}.seconds.generate`), execute: finite(seconds.execute, `${path}.seconds.execute`), update: finite(seconds.update, `${path}.seconds.update`) };
  }
  if (entry.callsHistogram !== null && entry.callsHistogram !== undefined) metrics.callsHistogram = histogram(entry.callsHistogram, `${path}.callsHistogram`);
  for (const name of ['singleCallShareByDepth', 'callsPerResponseByDepth'] as const) {
    if (entry[name] !== null && entry[name] !== undefined) metrics[name] = depthFigures(entry[name], `${path}.${name}`);
  }
  if (entry.accuracyByKind !== null && entry.accuracyByKind !== undefined) metrics.accuracyByKind = keyedFigures<Kind>(entry.accuracyByKind, `${path}.accuracyByKind`, KINDS);
  if (entry.accuracyByFamily !== null && entry.accuracyByFamily !== undefined) metrics.accuracyByFamily = familyFigures(entry.accuracyByFamily, `${path}.accuracyByFamily`);
  return metrics;
}

/** A run's recorded steps, in strictly increasing step order, at most RUN_LIMITS.rows. */
export function checkMetricsList(value: unknown, path: string): StepMetrics[] {
  const rows = list(value, path, RUN_LIMITS.rows);
  let previous = -1;
  return rows.map((row, i) => {
    const metrics = checkStepMetrics(row, `${path}[${i}]`);
    if (metrics.step <= previous) refuse(`${path}[${i}]`, `is out of step order (step ${metrics.step} after step ${previous})`);
    previous = metrics.step;
    return metrics;
  });
}

function checkSegment(value: unknown, path: string): SampleSegment {
  const segment = record(value, path);
  if (segment.kind !== 'policy' && segment.kind !== 'env') refuse(`${path}.kind`, 'is neither "policy" nor "env"');
  return { kind: segment.kind, text: text(segment.text, `${path}.text`, RUN_LIMITS.text) };
}

function checkCall(value: unknown, path: string): RolloutSample['calls'][number] {
  const call = record(value, path);
  return {
    code: text(call.code, `${path}.code`, RUN_LIMITS.text),
    executed: bool(call.executed, `${path}.executed`),
    ok: call.ok === null ? null : bool(call.ok, `${path}.ok`),
    // A program names its own exception classes: the type is as long as the code can make it.
    errorType: textOrNull(call.errorType, `${path}.errorType`, RUN_LIMITS.text),
  };
}

/** One answer as the inspector shows it: its texts bounded, each segment and call well formed. */
export function checkSample(value: unknown, path: string): RolloutSample {
  const sample = record(value, path);
  const segments = list(sample.segments, `${path}.segments`, RUN_LIMITS.segments).map((s, i) => checkSegment(s, `${path}.segments[${i}]`));
  const calls = list(sample.calls, `${path}.calls`, RUN_LIMITS.calls).map((c, i) => checkCall(c, `${path}.calls[${i}]`));
  const length = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);
  if (length(segments.map((s) => s.text)) > RUN_LIMITS.text) refuse(`${path}.segments`, `hold more than ${RUN_LIMITS.text} characters`);
  if (length(calls.map((c) => c.code)) > RUN_LIMITS.text) refuse(`${path}.calls`, `hold more than ${RUN_LIMITS.text} characters of code`);
  return {
    step: upTo(sample.step, `${path}.step`, RUN_LIMITS.step),
    prompt: text(sample.prompt, `${path}.prompt`, RUN_LIMITS.text),
    tier: text(sample.tier, `${path}.tier`, RUN_LIMITS.label),
    expected: finite(sample.expected, `${path}.expected`),
    response: text(sample.response, `${path}.response`, RUN_LIMITS.text),
    segments,
    reward: finite(sample.reward, `${path}.reward`),
    endedWithEos: bool(sample.endedWithEos, `${path}.endedWithEos`),
    calls,
  };
}

export function checkSamples(value: unknown, path: string): RolloutSample[] {
  return list(value, path, RUN_LIMITS.samples).map((s, i) => checkSample(s, `${path}[${i}]`));
}

/** Held-out accuracy by inference Nmax (the sweep's matrix row), or null (absent too). */
export function checkEvaluation(value: unknown, path: string): Record<number, number> | null {
  if (value === null || value === undefined) return null;
  const entries = Object.entries(record(value, path));
  if (entries.length > RUN_LIMITS.blocks) refuse(path, `has ${entries.length} entries, more than ${RUN_LIMITS.blocks}`);
  const [low, high] = NUMERIC_BOUNDS.nmax;
  return Object.fromEntries(
    entries.map(([key, accuracy]) => {
      const nmax = Number(key);
      if (!/^\d+$/.test(key) || nmax < low || nmax > high) refuse(path, `has ${JSON.stringify(key.slice(0, RUN_LIMITS.label))}, not an Nmax from ${low} to ${high}`);
      return [nmax, finite(accuracy, `${path}.${key}`)];
    }),
  );
}

function checkBlock(value: unknown, path: string): EvalBlock {
  const block = record(value, path);
  const at = (name: string) => `${path}.${name}`;
  return {
    nmax: upTo(block.nmax, at('nmax'), NUMERIC_BOUNDS.nmax[1]),
    samples: count(block.samples, at('samples')),
    'pass@1': finite(block['pass@1'], at('pass@1')),
    standardError: finite(block.standardError, at('standardError')),
    byTier: keyedFigures<Tier>(block.byTier, at('byTier'), TIERS),
    byKind: keyedFigures<Kind>(block.byKind, at('byKind'), KINDS),
    byFamily: familyFigures(block.byFamily, at('byFamily')),
    byDepth: depthFigures(block.byDepth, at('byDepth')),
    // Reports from before the paired differences have no per-problem list: no difference is shown.
    perProblem: block.perProblem === undefined ? [] : list(block.perProblem, at('perProblem'), RUN_LIMITS.problems).map((x, i) => finite(x, `${at('perProblem')}[${i}]`)),
    codeRatio: figure(block.codeRatio, at('codeRatio')),
    codeLines: figure(block.codeLines, at('codeLines')),
    correctCodeCount: finite(block.correctCodeCount, at('correctCodeCount')),
    codePassRate: figure(block.codePassRate, at('codePassRate')),
    invocationPosition: figure(block.invocationPosition, at('invocationPosition')),
    callsPerResponse: figure(block.callsPerResponse, at('callsPerResponse')),
    callsHistogram: histogram(block.callsHistogram, at('callsHistogram')),
    singleCallShare: figure(block.singleCallShare, at('singleCallShare')),
    singleCallShareByDepth: depthFigures(block.singleCallShareByDepth, at('singleCallShareByDepth')),
    callsPerResponseByDepth: depthFigures(block.callsPerResponseByDepth, at('callsPerResponseByDepth')),
    selfCorrections: finite(block.selfCorrections, at('selfCorrections')),
    selfCorrectedResponses: finite(block.selfCorrectedResponses, at('selfCorrectedResponses')),
    selfCorrectionShare: figure(block.selfCorrectionShare, at('selfCorrectionShare')),
  };
}

function checkReport(value: unknown, path: string): EvalReport {
  const report = record(value, path);
  const at = (name: string) => `${path}.${name}`;
  if (typeof report.format !== 'string' || !Object.hasOwn(TOOL_FORMATS, report.format)) refuse(at('format'), `is not one of ${Object.keys(TOOL_FORMATS).join(', ')}`);
  return {
    checkpoint: text(report.checkpoint, at('checkpoint'), RUN_LIMITS.checkpointName),
    format: report.format as ToolFormatName,
    problems: upTo(report.problems, at('problems'), RUN_LIMITS.problems),
    k: count(report.k, at('k')),
    temperature: finite(report.temperature, at('temperature')),
    topP: finite(report.topP, at('topP')),
    seed: finite(report.seed, at('seed')),
    maxResponseTokens: count(report.maxResponseTokens, at('maxResponseTokens')),
    maxOutputChars: count(report.maxOutputChars, at('maxOutputChars')),
    wallSeconds: finite(report.wallSeconds, at('wallSeconds')),
    // Reports from before the gain by depth have no depths: no gain is split.
    problemDepths:
      report.problemDepths === undefined ? [] : list(report.problemDepths, at('problemDepths'), RUN_LIMITS.problems).map((d, i) => depth(d, `${at('problemDepths')}[${i}]`)),
    blocks: list(report.blocks, at('blocks'), RUN_LIMITS.blocks).map((b, i) => checkBlock(b, `${at('blocks')}[${i}]`)),
  };
}

/** The latest pass@1 evaluation of a run, or null (absent too). */
export function checkPassAtOne(value: unknown, path: string): PassAtOneResult | null {
  if (value === null || value === undefined) return null;
  const result = record(value, path);
  return { step: upTo(result.step, `${path}.step`, RUN_LIMITS.step), report: checkReport(result.report, `${path}.report`), evaluatedAt: finite(result.evaluatedAt, `${path}.evaluatedAt`) };
}

/**
 * A run's name: text, not blank, at most `max` characters (a file's, RUN_LIMITS.name; a stored run's
 * may be longer, as the lab adds " (2)", " fork@12" or " from step 4" to names it was given).
 */
export function checkRunName(value: unknown, path: string, max: number = RUN_LIMITS.name): string {
  const name = text(value, path, max);
  if (name.trim() === '') refuse(path, 'is blank');
  return name;
}

/** An experiment config with only the known properties (a saved one given the defaults of knobs added since); refused with configErrors' messages. */
export function checkConfig(value: unknown, path: string): ExperimentConfig {
  const saved = withSavedConfigDefaults(record(value, path));
  const config = Object.fromEntries(
    EXPERIMENT_PROPERTIES.map((property) => {
      const field = saved[property.key];
      // A mix that is not an object is left for configErrors to name.
      const kept = property.kind === 'mix' && isObject(field) ? Object.fromEntries(property.parts.map(([part]) => [part, field[part]])) : field;
      return [property.key, kept];
    }),
  ) as unknown as ExperimentConfig;
  const errors = Object.values(configErrors(config));
  if (errors.length > 0) refuse(path, `is invalid: ${errors.join('; ')}`);
  return config;
}
