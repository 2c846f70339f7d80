/**
 * How many of a sweep's arms train at once, each in a trainer worker of its own (one wasm thread
 * each: workers side by side use cores better than XNNPACK's threads, which sped the update by a
 * sixth at 2 threads here). A lane takes about two cores: one for its trainer, and most of another
 * for its Python workers and the page drawing its curves (a classroom run in Node used 158% of one
 * core). On this 2-core machine two lanes took 166 s for the ablation sweep at 20 steps an arm and
 * one lane 160 s (docs/performance.md), so two cores get one lane: the arms one after another in
 * the lab's worker, as the CLI's `--nmax 0,1,2,4` gets one process per core. At most four lanes:
 * each worker holds its own tfjs and three Python interpreters.
 */
export const MAX_SWEEP_LANES = 4;

export function sweepLanes(cores: number, arms: number): number {
  return Math.max(1, Math.min(MAX_SWEEP_LANES, arms, Math.floor(cores / 2)));
}
