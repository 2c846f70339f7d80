/**
 * The benchmark report's shape as a checkable schema, for the tests of both benchmarks: the engine's
 * report (src/bench/benchmark.ts) and the browser benchmark's wrapper around it.
 */

/** A leaf's type, or an object whose listed keys must match ('object': any object). */
export type Schema = 'number' | 'string' | 'boolean' | 'object' | { [key: string]: Schema };

/** Paths in `value` that are missing or of the wrong type (numbers finite and >= 0, strings non-empty). */
export function schemaErrors(value: unknown, schema: Schema, path = ''): string[] {
  const wrong = [`${path}: ${JSON.stringify(value)}`];
  if (schema === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? [] : wrong;
  if (schema === 'string') return typeof value === 'string' && value.length > 0 ? [] : wrong;
  if (schema === 'boolean') return typeof value === 'boolean' ? [] : wrong;
  if (typeof value !== 'object' || value === null) return [`${path}: not an object`];
  if (schema === 'object') return [];
  return Object.entries(schema).flatMap(([key, inner]) => schemaErrors((value as Record<string, unknown>)[key], inner, `${path}.${key}`));
}

export const STEP_SCHEMA: Schema = {
  nmax: 'number',
  seconds: { generate: 'number', execute: 'number', update: 'number', total: 'number' },
  responses: 'number',
  policyTokens: 'number',
  sandboxCalls: 'number',
  sandboxCallSeconds: 'number',
  tensorsLeaked: 'number',
  flops: 'number',
  split: { kernels: 'number', readback: 'number', other: 'number' },
};

const ROOFLINE_PHASE_SCHEMA = {
  gflops: 'number',
  seconds: 'number',
  gflopsPerSecond: 'number',
  peakFraction: 'number',
  split: { kernels: 'number', readback: 'number', other: 'number' },
} as const satisfies Record<string, Schema>;

/** BenchReport, field by field. */
export const BENCH_REPORT_SCHEMA: Record<string, Schema> = {
  backend: 'string',
  model: { source: 'string', parameters: 'number' },
  generate: {
    batch: 'number',
    newTokens: 'number',
    tokensPerSecond: 'number',
    recomputeTokensPerSecond: 'number',
    speedup: 'number',
    seconds: 'number',
    recomputeSeconds: 'number',
  },
  update: { sequences: 'number', tokens: 'number', seconds: 'number', tokensPerSecond: 'number' },
  sandbox: { calls: 'number', medianMs: 'number', p95Ms: 'number' },
  step: { nmax2: STEP_SCHEMA, nmax0: STEP_SCHEMA, totals: { nmax2: 'object', nmax0: 'object' } },
  dispatchesPerTokenStep: 'number',
  readbacksPerTokenStep: 'number',
  readbackBytesPerTokenStep: 'number',
  kernelsPerTokenStep: 'object',
  tensorsLeakedPerStep: 'number',
  roofline: {
    matmul: { shapes: 'object', peakGflopsPerSecond: 'number' },
    generate: ROOFLINE_PHASE_SCHEMA,
    update: ROOFLINE_PHASE_SCHEMA,
    step: { ...ROOFLINE_PHASE_SCHEMA, sandboxWaitSeconds: 'number' },
  },
};
