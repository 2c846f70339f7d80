/**
 * The lab's own transcripts, for the export's parity tests: samples.jsonl of two seeded runs,
 * `npm run train -- --preset quick --seed 1 --steps 12 --samples-per-step 64` (ZeroTIR fences) and
 * the same for 4 steps with `--base public/models/coldstart` (ReTool tags), every rollout kept.
 */
import { readFileSync } from 'node:fs';
import type { RolloutSample } from '../src/core/rollout/rolloutSample';

export function fixtureSamples(name: 'samples-quick-zerotir.jsonl' | 'samples-coldstart-retool.jsonl'): RolloutSample[] {
  return readFileSync(`test/fixtures/${name}`, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RolloutSample);
}
