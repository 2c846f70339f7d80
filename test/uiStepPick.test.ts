/**
 * Linked views: a click on a chart picks the nearest recorded step, and the answers panel shows
 * that step's kept answers in the order written, or says why there are none.
 */
import { describe, expect, it } from 'vitest';
import { nearestStep } from '../src/ui/charts/nearestStep';
import { createLabStore, pickedStepOf, pickStep, reduceLabEvent } from '../src/ui/state/labStore';
import { makeRun } from '../src/ui/state/labRun';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { answersOfStep, neighbourStepWithAnswers, stepsWithAnswers, whyNoAnswers } from '../src/ui/state/stepAnswers';
import { parseLabUrl } from '../src/ui/state/urlState';
import { metricsAt, sampleAt } from './uiFixtures';

describe('nearestStep: the step a click on a chart means', () => {
  const steps = [0, 1, 2, 5, 10];

  it('is the recorded step nearest the clicked x, the earlier on a tie', () => {
    expect(nearestStep(steps, 0)).toBe(0);
    expect(nearestStep(steps, 0.4)).toBe(0);
    expect(nearestStep(steps, 0.5)).toBe(0);
    expect(nearestStep(steps, 0.51)).toBe(1);
    expect(nearestStep(steps, 3.4)).toBe(2);
    expect(nearestStep(steps, 3.6)).toBe(5);
    expect(nearestStep(steps, 7.5)).toBe(5);
    expect(nearestStep(steps, 9)).toBe(10);
  });

  it('clamps a click left of the first step or right of the last to them', () => {
    expect(nearestStep(steps, -4)).toBe(0);
    expect(nearestStep(steps, 250)).toBe(10);
  });

  it('is null with no steps or no number', () => {
    expect(nearestStep([], 3)).toBeNull();
    expect(nearestStep(steps, Number.NaN)).toBeNull();
  });
});

describe("a step's kept answers", () => {
  /** As the store holds them: newest first, each step's own in reverse. */
  const written = (step: number) => [0, 1, 2].map((i) => ({ ...sampleAt(step, i % 2), prompt: `Q: question ${i} of step ${step}\nA:` }));
  const held = [...written(3)].reverse().concat([...written(2)].reverse());

  it('are that step’s only, in the order the step wrote them', () => {
    expect(answersOfStep(held, 3).map((s) => s.prompt)).toEqual(written(3).map((s) => s.prompt));
    expect(answersOfStep(held, 2).every((s) => s.step === 2)).toBe(true);
    expect(answersOfStep(held, 1)).toEqual([]);
  });

  it('lists the steps that have some, and the neighbours of a step among them', () => {
    expect(stepsWithAnswers(held)).toEqual([2, 3]);
    expect(neighbourStepWithAnswers(held, 3, -1)).toBe(2);
    expect(neighbourStepWithAnswers(held, 3, 1)).toBeNull();
    expect(neighbourStepWithAnswers(held, 0, 1)).toBe(2);
    expect(neighbourStepWithAnswers(held, 2, -1)).toBeNull();
  });

  it('says why a step has none: step 0, none kept, or dropped as older than the newest kept', () => {
    expect(whyNoAnswers(0, 4, 48)).toMatch(/^Step 0 is the model before any practice/);
    expect(whyNoAnswers(5, 0, 48)).toBe('This run keeps no answers (“Answers kept to read” is 0).');
    expect(whyNoAnswers(5, 4, 48)).toBe('The answers of step 5 are no longer kept: the lab keeps the newest 48 answers, about the last 12 steps.');
    expect(whyNoAnswers(5, 64, 48)).toMatch(/about the last step\.$/);
  });
});

describe('the picked step in the store', () => {
  it('belongs to the run shown when it was picked: another run shown drops it, and new steps keep it', () => {
    const store = createLabStore(parseLabUrl('', '').state);
    const config = LAB_PRESETS.quick.config;
    for (const id of ['a', 'b']) store.setState((s) => ({ runs: { ...s.runs, [id]: makeRun({ id, name: id, preset: 'quick', config, createdAt: 1 }) } }));
    store.setState({ selectedRunId: 'a' });
    pickStep(store, 2);
    expect(pickedStepOf(store.getState())).toBe(2);
    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'a', metrics: metricsAt(3), samples: [sampleAt(3, 1)] }));
    expect(pickedStepOf(store.getState())).toBe(2);
    store.setState({ selectedRunId: 'b' });
    expect(pickedStepOf(store.getState())).toBeNull();
    store.setState({ selectedRunId: 'a' });
    pickStep(store, null);
    expect(pickedStepOf(store.getState())).toBeNull();
  });
});
