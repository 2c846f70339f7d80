/**
 * src/core is built in floors, in training order: a file imports its own floor and the ones below,
 * never one above (type-only imports count, as they do for the cycle test). So a reader can learn
 * the engine bottom up, and the model's and the optimiser's code never knows how a run is trained.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceTree } from './importGraph';

/** Lowest first; a name ending in '/' is a folder of src/core, any other a file of its top level. */
const CORE_FLOORS: readonly (readonly string[])[] = [
  // what the engine acts on: text, seeded streams, the problems, the Python sandbox; JSON's shapes
  ['random.ts', 'tokenizer.ts', 'tasks/', 'sandbox/', 'jsonValue.ts'],
  // the GPT: definition, token log-probs and entropy, decoding, sampling
  ['model/'],
  // a run's knobs, checked against the model's memory
  ['memoryEstimate.ts', 'experiment.ts'],
  // Adam's state, gradient clipping, the rate schedule
  ['optim/'],
  // what a run carries beyond its weights, and the checkpoint file that holds both
  ['run/'],
  // one tool-use episode and the batched rollout loop
  ['rollout/'],
  // the pretraining corpus; what a step and a run measure; held-out evaluation
  ['corpus/', 'metrics/', 'eval/'],
  // a run as one file that travels (config, curves, samples, evaluation, checkpoint), checked when read
  ['archive/'],
  // the three ways to train, in the order a model meets them
  ['pretrain/'],
  ['sft/'],
  ['rl/'],
  // the cluster bundle, written from a finished run's config
  ['export/'],
];

function floorOf(file: string, floors: readonly (readonly string[])[]): number {
  return floors.findIndex((names) => names.some((name) => (name.endsWith('/') ? file.startsWith(name) : file === name)));
}

/** 'importer -> imported' for each import that reaches a higher floor, and each file on no floor. */
function floorBreaches(graph: Map<string, string[]>, floors: readonly (readonly string[])[]): string[] {
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    const floor = floorOf(file, floors);
    if (floor < 0) {
      breaches.push(`${file} is on no floor`);
      continue;
    }
    for (const target of targets) if (floorOf(target, floors) > floor) breaches.push(`${file} -> ${target}`);
  }
  return breaches.sort();
}


describe('src/core floors', () => {
  it('no file imports one on a higher floor, and every file has a floor', () => {
    const graph = importGraph(join(__dirname, '..', 'src', 'core'));
    expect(graph.size).toBeGreaterThan(50);
    expect(floorBreaches(graph, CORE_FLOORS)).toEqual([]);
  });

  it('sees an upward import, a type-only one included, and a file on no floor', () => {
    const root = sourceTree({
      'random.ts': 'export const seed = 1;\n',
      'model/gpt.ts': "import { seed } from '../random';\nimport type { State } from '../rl/state';\nexport const gpt = (s: State) => seed + s.step;\n",
      'rl/state.ts': "import { gpt } from '../model/gpt';\nexport type State = { step: number };\nexport const run = gpt;\n",
      'rl/loop.ts': "export { run } from './state';\n",
      'stray/file.ts': "import { seed } from '../random';\nexport const stray = seed;\n",
    });
    expect(floorBreaches(importGraph(root), [['random.ts'], ['model/'], ['rl/']])).toEqual(['model/gpt.ts -> rl/state.ts', 'stray/file.ts is on no floor']);
  });
});
