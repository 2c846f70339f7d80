/** What the tests of `npm run train` read back from a run directory. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A run directory's metrics without the timings, which differ from run to run. */
export function metricsOf(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const { seconds: _s, tokensPerSecond: _t, ...rest } = JSON.parse(line);
      return rest;
    });
}

/** The steps metrics.jsonl has lines for, in order; null before the file exists. */
export function metricSteps(dir: string): number[] | null {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return null;
  return readFileSync(path, 'utf8').split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { step: number }).step);
}

/** The step the run's checkpoint holds. */
export function checkpointStep(dir: string): number {
  return JSON.parse(readFileSync(join(dir, 'checkpoint', 'model.json'), 'utf8')).trainer.step;
}
