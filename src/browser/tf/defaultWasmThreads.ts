/**
 * How many XNNPACK threads a trainer's wasm backend starts with: half the logical cores, at most 4.
 * On the 2-core machine here 2 threads made both halves of an RL step slower while other jobs shared
 * the cores, and on a quiet machine sped the update by a sixth while slowing the token step
 * (docs/performance.md has the figures); the lab's Python workers need cores during every step.
 * Its own file, free of tfjs, because the page reads it too: a sweep trains as many arms at once as
 * the cores hold trainers of this many threads (sweepLanes.ts).
 */
export function defaultWasmThreads(cores: number = navigator.hardwareConcurrency || 1): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}
