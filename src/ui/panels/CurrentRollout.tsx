/**
 * The newest answer of the shown run, on the first screen beside the headline charts: what the
 * model wrote at the latest step, its code, the sandbox's output and the reward. The inspector tab
 * has the rest, with filters.
 */
import { useDeferredValue } from 'react';
import { useLabState } from '../LabContext';
import { selectedRun } from '../state/labStore';
import { SampleCard } from './RolloutInspector';

export function CurrentRollout() {
  const sample = useDeferredValue(useLabState((s) => selectedRun(s)?.samples[0] ?? null));
  return (
    <section className="panel current-rollout" data-testid="current-rollout" aria-labelledby="current-rollout-title">
      <h2 id="current-rollout-title">Latest answer</h2>
      {sample === null ? (
        <p className="empty">After the first step, the newest answer the model wrote shows here: its Python, the sandbox's output and the reward.</p>
      ) : (
        <ol className="samples">
          <SampleCard sample={sample} testId="current-rollout-sample" />
        </ol>
      )}
    </section>
  );
}
