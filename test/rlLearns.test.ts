/**
 * The quick preset's first steps on the shipped base model, with the real sandbox: code use rises.
 * Measured here (seed 1, the stage-12 base, quick preset at lr 1e-4 with the classroom's mix):
 * code-call frequency 0.23, 0.11, 0.28 at steps 1-3 (mean 0.21) and 0.98, 1, 0.97, 0.97, 1 at steps
 * 21-25 (mean 0.98), about 37 s (the stage-7 base and the mix before: 0.37 and 0.90, 65 s). The base
 * model may be replaced, so this asserts the direction with a margin, not those numbers.
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
    // the claim. Measured (stage 12): 0.57, 0.33, 0.14, 0.35, 0.06 at steps 1-5 (mean 0.29); at steps
    // 16-25 0.11, 0, 0.14, 0.04, 0.08, 0.10, 0.38, 0.04, 0, 0.02 (median 0.06). A step's share is over
    // the few answers that printed the right number, so one step can jump (0.38 at step 22; with the
    // stage-7 base, 0.57 there): the late level is a median.
    const measured = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
    };
    expect(measured(unclaimed.slice(0, 5)).length).toBeGreaterThan(0);
    expect(mean(measured(unclaimed.slice(0, 5))) - median(measured(unclaimed.slice(15, 25)))).toBeGreaterThan(0.1);
  }, 480_000);
});
