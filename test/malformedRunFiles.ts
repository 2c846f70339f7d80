/**
 * Malformed run files for the tests (issue 25, item 5): a good run file, and that file with a value of
 * a wrong type or size put at each of its fields in turn, or one entry more in each list than a run
 * may hold. Used by test/uiRunFileFuzz.test.ts (all of them) and e2e/badRunFiles.spec.ts (in Chromium).
 */
import { PRESETS } from '../src/core/experiment';
import { TOKENIZER_VERSION } from '../src/core/tokenizer';
import { RUN_LIMITS } from '../src/core/archive/runChecks';
import { encodeRunFile } from '../src/core/archive/runFile';
import { metricsAt, sampleAt } from './uiFixtures';

const manifest = {
  format: 'tir-lab-checkpoint',
  formatVersion: 2,
  tokenizerVersion: TOKENIZER_VERSION,
  config: {},
  weights: [{ name: 'w', shape: [1], offset: 0, length: 4 }],
  meta: { step: 2 },
};
export const goodRunConfig = { ...PRESETS.quick, steps: 6, seed: 7 };
// The first row and sample carry every kind of field: the walk below puts bad values in the first entry of each list.
const history = [
  metricsAt(0, {
    testAccuracy: 0.1,
    callsHistogram: [3, 1],
    singleCallShareByDepth: [1, null, 0.5, null, null],
    callsPerResponseByDepth: [1, null, 2.5, null, null],
    accuracyByKind: { arithmetic: 0.5, compose: null, search: null, errorProne: null, multiStep: null, chain: null },
    accuracyByFamily: { oneDigitSum: 0.5 },
    seconds: { generate: 1, execute: 0.5, update: 0.25 },
  }),
  metricsAt(1, { accuracy: 0.25 }),
  metricsAt(2, { accuracy: 0.5, codeCallFrequency: 0.75 }),
];
const block = {
  nmax: 2, samples: 8, 'pass@1': 0.5, standardError: 0.1, byTier: { easy: 0.5, medium: null, hard: null },
  byKind: { arithmetic: 0.5, compose: null, search: null, errorProne: null, multiStep: null, chain: null }, byFamily: { oneDigitSum: 0.5 }, byDepth: [0.5, null, null, null, null], perProblem: [0.5, 0.5],
  codeRatio: 0.5, codeLines: 1, correctCodeCount: 1, codePassRate: 1, invocationPosition: 0.2, callsPerResponse: 1, callsHistogram: [4, 4],
  singleCallShare: 1, singleCallShareByDepth: [1, null, null, null, null], callsPerResponseByDepth: [1, null, null, null, null], selfCorrections: 0, selfCorrectedResponses: 0, selfCorrectionShare: 0,
};
const passAtOne = {
  step: 2,
  evaluatedAt: 5,
  report: { checkpoint: 'good run step 2', format: 'zerotir', problems: 2, k: 4, temperature: 1, topP: 0.7, seed: 1, maxResponseTokens: 96, maxOutputChars: 64, wallSeconds: 1, problemDepths: [1, 1], blocks: [block] },
};
export const goodRunFile: Record<string, unknown> = {
  ...JSON.parse(
    encodeRunFile(
      { name: 'good run', preset: 'quick', config: goodRunConfig, metrics: history, samples: [sampleAt(2, 1), sampleAt(1, 0, false)], evaluation: { 0: 0.1, 2: 0.4 } },
      { step: 2, blob: { manifest, weights: new Uint8Array(Float32Array.from([0.5]).buffer) } },
    ),
  ),
  passAtOne,
};

/** Values of a wrong type or size for any field: a fraction where a count goes, a number no step or figure reaches. */
const BAD_VALUES: unknown[] = [null, -1, 0.5, 1e300, 'x', true, {}, [], [null], [{}], { a: 'b' }, 'x'.repeat(RUN_LIMITS.text + 1)];
/** Where the walk stops: the checkpoint has checks of its own (uiRunFile.test.ts); the summary is for `npm run compare`, never read by the lab. */
const SKIPPED = new Set(['checkpoint.manifest', 'checkpoint.weightsBase64', 'summary']);

export type Path = (string | number)[];

function fieldPaths(value: unknown, path: Path = []): Path[] {
  if (SKIPPED.has(path.join('.'))) return [path];
  const children: Path[] = [];
  if (Array.isArray(value)) children.push(...value.slice(0, 1).flatMap((item, i) => fieldPaths(item, [...path, i])));
  else if (typeof value === 'object' && value !== null) children.push(...Object.entries(value).flatMap(([key, item]) => fieldPaths(item, [...path, key])));
  return [path, ...children];
}

export function withValue(file: unknown, path: Path, value: unknown, remove = false): unknown {
  const copy = structuredClone(file) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  if (remove) delete at[path[path.length - 1]];
  else at[path[path.length - 1]] = value;
  return copy;
}

/** Every list of the good file one entry longer than a run may hold, and the families one too many. */
function oversized(file: unknown): [string, unknown][] {
  const longer = (path: Path, limit: number) => {
    const list = path.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], file) as unknown[];
    return withValue(file, path, Array.from({ length: limit + 1 }, (_, i) => structuredClone(list[i % list.length])));
  };
  const families = Object.fromEntries(Array.from({ length: RUN_LIMITS.families + 1 }, (_, i) => [`family${i}`, 0.5]));
  return [
    ['samples', longer(['samples'], RUN_LIMITS.samples)],
    ['segments', longer(['samples', 0, 'segments'], RUN_LIMITS.segments)],
    ['calls', longer(['samples', 0, 'calls'], RUN_LIMITS.calls)],
    ['calls histogram', longer(['metrics', 0, 'callsHistogram'], RUN_LIMITS.histogram)],
    ['pass@1 blocks', longer(['passAtOne', 'report', 'blocks'], RUN_LIMITS.blocks)],
    ['families', withValue(file, ['metrics', 0, 'accuracyByFamily'], families)],
  ];
}

/** [what was done to the good file, the file] for every field and bad value, then every list made too long. */
export function malformedRunFiles(): [string, unknown][] {
  const variants: [string, unknown][] = [...oversized(goodRunFile)];
  for (const path of fieldPaths(goodRunFile).filter((p) => p.length > 0)) {
    variants.push([`${path.join('.')} removed`, withValue(goodRunFile, path, undefined, true)]);
    for (const value of BAD_VALUES) variants.push([`${path.join('.')} = ${JSON.stringify(value).slice(0, 20)}`, withValue(goodRunFile, path, value)]);
  }
  return variants;
}
