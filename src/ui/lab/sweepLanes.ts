/**
 * How many of a sweep's arms train at once, each in a trainer worker of its own. A trainer runs its
 * kernels on its own threads (one JS thread; on wasm, `defaultWasmThreads` XNNPACK threads), so arms
 * side by side are what use the other cores, as the CLI's `--nmax 0,1,2,4` does with processes. One
 * lane per trainer's worth of cores, at most four (each worker holds its own tfjs and three Python
 * interpreters); one lane when the cores hold only one trainer, and the arms train one after another
 * in the lab's own worker as before.
 */
import { defaultWasmThreads } from '../../browser/tf/defaultWasmThreads';
import type { BackendName } from '../../labWorker/protocol';

export const MAX_SWEEP_LANES = 4;

export function sweepLanes(cores: number, backend: BackendName | null, arms: number): number {
  const threadsPerTrainer = backend === 'wasm' ? defaultWasmThreads(cores) : 1;
  const lanes = Math.floor(Math.max(1, cores) / threadsPerTrainer);
  return Math.max(1, Math.min(MAX_SWEEP_LANES, arms, lanes));
}
