/**
 * What the benchmark CLIs share about their setup: the model they time (a checkpoint when one is
 * there, else a random init of the base model's shape, since the timings depend on the shape) and
 * the machine they run on. The machine is shared, so a report carries the load average before and
 * after: a high one means slower, noisier figures.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { round } from '../../bench/generationBench';
import { BASE_MODEL_CONFIG } from '../../core/model/config';
import { GPT } from '../../core/model/gpt';
import { loadCheckpointDir } from '../../node/checkpointFiles';

/** The checkpoint in `dir`, or a random init of BASE_MODEL_CONFIG from `seed` when there is none; `source` says which. */
export async function benchModel(dir: string, seed: number): Promise<{ model: GPT; source: string }> {
  if (existsSync(join(dir, 'model.json'))) return { model: (await loadCheckpointDir(dir)).model, source: dir };
  return { model: GPT.init(BASE_MODEL_CONFIG, seed), source: `random init (seed ${seed}; no checkpoint at ${dir})` };
}

export interface MachineFacts {
  node: string;
  cpus: number;
  loadAverage1m: { before: number; after: number };
}

/** Notes the load average now; facts() gives it with the load average then. */
export function watchMachine(): { facts(): MachineFacts } {
  const before = loadavg()[0]!;
  return { facts: () => ({ node: process.version, cpus: availableParallelism(), loadAverage1m: { before: round(before, 2), after: round(loadavg()[0]!, 2) } }) };
}
