/**
 * A step's kept answers, read from a run's samples (newest first, so a step's own answers are in
 * reverse: labStore.ts prepends them). Pure, for the answers panel and its tests.
 */
import type { RolloutSample } from '../../core/rollout/rolloutSample';

/** The answers kept for `step`, in the order the step wrote them (one per question first). */
export function answersOfStep(samples: readonly RolloutSample[], step: number): RolloutSample[] {
  return samples.filter((sample) => sample.step === step).reverse();
}

/** The steps that still have kept answers, ascending. */
export function stepsWithAnswers(samples: readonly RolloutSample[]): number[] {
  return [...new Set(samples.map((sample) => sample.step))].sort((a, b) => a - b);
}

/** The nearest step before (-1) or after (+1) `step` that has kept answers, or null. */
export function neighbourStepWithAnswers(samples: readonly RolloutSample[], step: number, direction: -1 | 1): number | null {
  const steps = stepsWithAnswers(samples);
  const found = direction < 0 ? steps.filter((s) => s < step).at(-1) : steps.find((s) => s > step);
  return found ?? null;
}

/** Why a step shows no answers, in words for the class. */
export function whyNoAnswers(step: number, samplesPerStep: number, samplesKept: number): string {
  if (step === 0) return 'Step 0 is the model before any practice: only its held-out test was run, so there are no answers to read.';
  if (samplesPerStep === 0) return 'This run keeps no answers (“Answers kept to read” is 0).';
  const steps = Math.max(1, Math.floor(samplesKept / samplesPerStep));
  return `The answers of step ${step} are no longer kept: the lab keeps the newest ${samplesKept} answers, about the last ${steps === 1 ? 'step' : `${steps} steps`}.`;
}
