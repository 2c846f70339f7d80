/**
 * The quick preset's first steps on the shipped base model, with the real sandbox: code use rises.
 * Measured here (seed 1, the stage-6 base, quick preset at lr 1e-4): code-call frequency 0.05, 0.06,
 * 0.08 at steps 1-3 (mean 0.06) and 0.94, 0.95, 0.98, 0.86, 0.88 at steps 21-25 (mean 0.92), about
 * 30 s. The base model may be replaced, so this asserts the direction with a margin, not those numbers.
 * The same for the share of right tool results left unclaimed, which falls as code use rises.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_CHECKPOINT } from '../src/cli/cliArgs';
import { PRESETS } from '../src/core/experiment';
import type { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import type { SandboxPool } from '../src/core/sandbox/pool';
import { loadCheckpointDir } from '../src/node/checkpointFiles';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { useWasmBackend } from './modelHelpers';

let base: GPT;
let sandbox: SandboxPool;
beforeAll(async () => {
  await useWasmBackend();
  base = (await loadCheckpointDir(DEFAULT_BASE_CHECKPOINT)).model;
  sandbox = createNodeSandbox({ size: 2 });
});
afterAll(async () => {
  base.dispose();
  await sandbox.close();
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('the quick preset learns', () => {
  it('raises code-call frequency (steps 21-25 above steps 1-3 by at least 0.15) and claims the tool\'s answers', async () => {
    const trainer = new Trainer(base, { ...PRESETS.quick, seed: 1, testEvery: 1000 }, sandbox);
    const frequency: number[] = [];
    const unclaimed: (number | null)[] = [];
    for (let step = 1; step <= 25; step++) {
      const { metrics } = await trainer.trainStep();
      frequency.push(metrics.codeCallFrequency!);
      unclaimed.push(metrics.unclaimedToolAnswerShare);
    }
    trainer.dispose();
    expect(mean(frequency.slice(20, 25)) - mean(frequency.slice(0, 3))).toBeGreaterThan(0.15);
    // Early on, some of the tool's right answers go unclaimed (prose, no Answer: line); RL teaches
    // the claim. Measured: 0.5, 0.33, 0, 0.2, 0.13 at steps 1-5 (mean 0.23), mean 0.04 at steps 21-25. The
    // stage-5 base left far more unclaimed (1, 1, 1, null, 1, then 0.18); stage 6 was made to claim
    // them (public/models/base/RECIPE.md), so the fall asked for is 0.15, not 0.3.
    const measured = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
    expect(measured(unclaimed.slice(0, 5)).length).toBeGreaterThan(0);
    expect(mean(measured(unclaimed.slice(0, 5))) - mean(measured(unclaimed.slice(20, 25)))).toBeGreaterThan(0.15);
  }, 240_000);
});
