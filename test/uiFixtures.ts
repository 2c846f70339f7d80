/** Small hand-made worker outputs for the lab UI tests. */
import { emptyStepMetrics, type StepMetrics } from '../src/core/metrics/stepMetrics';
import type { RolloutSample } from '../src/core/rollout/rolloutSample';

export function metricsAt(step: number, figures: Partial<StepMetrics> = {}): StepMetrics {
  return { ...emptyStepMetrics(step), ...figures };
}

export function sampleAt(step: number, reward: number, withCode = true): RolloutSample {
  const segments: RolloutSample['segments'] = withCode
    ? [
        { kind: 'policy', text: ' ```python\nprint(3*4)\n```' },
        { kind: 'env', text: '\n```output\n12\n```\n' },
        { kind: 'policy', text: 'Answer: 12' },
      ]
    : [{ kind: 'policy', text: ' Answer: 12' }];
  return {
    step,
    prompt: 'Q: what is 3*4?\nA:',
    tier: 'easy',
    expected: 12,
    response: segments.map((s) => s.text).join(''),
    segments,
    reward,
    endedWithEos: true,
    calls: withCode ? [{ code: 'print(3*4)', executed: true, ok: true, errorType: null }] : [],
  };
}
