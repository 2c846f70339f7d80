/** A step's training problems: independent draws as before the knob, stratified draws in proportion, and the trainer's use of the knob. */
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { Random } from '../src/core/random';
import { Trainer } from '../src/core/rl/trainer';
import { KINDS, type Problem } from '../src/core/tasks/problem';
import { isHeldOut, trainProblem, type ProblemMix } from '../src/core/tasks/splits';
import { familyShares, stepProblems } from '../src/core/tasks/stepProblems';
import { randomModel, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

const classroom: ProblemMix = PRESETS.classroom;

function counts(problems: Problem[], key: (p: Problem) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of problems) out.set(key(p), (out.get(key(p)) ?? 0) + 1);
  return out;
}

describe('familyShares', () => {
  it('splits each kind evenly over its families, and arithmetic by tier first', () => {
    const shares = new Map(familyShares(classroom));
    expect([...shares.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    // Arithmetic 0.35, easy tier 0.25 of it, and the easy tier is one family.
    expect(shares.get('oneDigitSum')).toBeCloseTo(0.35 * 0.25, 12);
    // Hard tier: 0.5 of arithmetic over five families.
    expect(shares.get('modulo')).toBeCloseTo((0.35 * 0.5) / 5, 12);
    // Multi-step 0.15 over its two families; the chain kind is one family.
    expect(shares.get('productDigitSum')).toBeCloseTo(0.075, 12);
    expect(shares.get('sevens')).toBeCloseTo(0.25, 12);
  });

  it('leaves out the kinds and tiers of weight 0', () => {
    const shares = familyShares({ tierMix: { easy: 0, medium: 1, hard: 0 }, kindMix: { arithmetic: 1, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 } });
    expect(shares.map(([family]) => family)).toEqual(['twoDigitSum', 'twoDigitDifference', 'oneDigitProduct']);
  });
});

describe('stepProblems', () => {
  it('draws independently exactly what trainProblem drew one by one (runs saved before the knob replay)', () => {
    const a = new Random(11);
    const b = new Random(11);
    const drawn = stepProblems(a, classroom, 16, 'independent');
    expect(drawn.map((p) => p.id)).toEqual(Array.from({ length: 16 }, () => trainProblem(b, classroom).id));
  });

  it('gives every family, kind and tier its expected count rounded down or up, at every step', () => {
    const rng = new Random(5);
    const shares = familyShares(classroom);
    const kindShare = Object.fromEntries(KINDS.map((k) => [k, classroom.kindMix[k] / KINDS.reduce((s, x) => s + classroom.kindMix[x], 0)]));
    for (let step = 0; step < 50; step++) {
      const problems = stepProblems(rng, classroom, 16, 'stratified');
      expect(problems).toHaveLength(16);
      const byFamily = counts(problems, (p) => p.family);
      for (const [family, share] of shares) {
        const n = byFamily.get(family) ?? 0;
        expect(n).toBeGreaterThanOrEqual(Math.floor(16 * share));
        expect(n).toBeLessThanOrEqual(Math.ceil(16 * share));
      }
      const byKind = counts(problems, (p) => p.kind);
      for (const kind of KINDS) {
        expect(Math.abs((byKind.get(kind) ?? 0) - 16 * kindShare[kind])).toBeLessThan(1);
      }
      expect(problems.some(isHeldOut)).toBe(false);
    }
  });

  it('matches the mix over many steps, and spreads the kinds through the step rather than in mix order', () => {
    const rng = new Random(9);
    const all: Problem[] = [];
    let firstIsArithmetic = 0;
    for (let step = 0; step < 400; step++) {
      const problems = stepProblems(rng, classroom, 16, 'stratified');
      if (problems[0].kind === 'arithmetic') firstIsArithmetic++;
      all.push(...problems);
    }
    const byFamily = counts(all, (p) => p.family);
    for (const [family, share] of familyShares(classroom)) expect((byFamily.get(family) ?? 0) / all.length).toBeCloseTo(share, 2);
    // Arithmetic is 0.35 of the mix: in mix order it would open every step.
    expect(firstIsArithmetic / 400).toBeGreaterThan(0.25);
    expect(firstIsArithmetic / 400).toBeLessThan(0.45);
  });

  it('is the same for the same seed', () => {
    const ids = (seed: number) => stepProblems(new Random(seed), classroom, 12, 'stratified').map((p) => p.id);
    expect(ids(3)).toEqual(ids(3));
    expect(ids(3)).not.toEqual(ids(4));
  });
});

describe('the trainer draws with the config\'s promptSampling', () => {
  beforeAll(useWasmBackend);
  // Three tiers of equal weight and three prompts a step: stratified, each step holds one problem
  // of each tier, so the easy tier's one family (oneDigitSum) is drawn at every step.
  const mix = { tierMix: { easy: 1, medium: 1, hard: 1 }, promptsPerStep: 3, groupSize: 2, minibatchSize: 6, epochs: 1 };

  async function stepsDrawingOneDigitSum(promptSampling: 'independent' | 'stratified'): Promise<number> {
    const model = randomModel(TINY_MODEL, 2);
    const trainer = new Trainer(model, tinyTrainerConfig({ ...mix, promptSampling }), printsOne);
    let drawn = 0;
    for (let i = 0; i < 6; i++) {
      const { metrics } = await trainer.trainStep();
      if (metrics.accuracyByFamily && 'oneDigitSum' in metrics.accuracyByFamily) drawn++;
    }
    trainer.dispose();
    model.dispose();
    return drawn;
  }

  it('stratified: every step; independent (this seed): not every step', async () => {
    expect(await stepsDrawingOneDigitSum('stratified')).toBe(6);
    expect(await stepsDrawingOneDigitSum('independent')).toBeLessThan(6);
  }, 60_000);
});
