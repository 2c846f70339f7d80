/**
 * The newest answer of the shown run, on the first screen beside the headline charts: what the
 * model wrote at the latest step, its code, the sandbox's output and the reward, under the RL loop
 * lit by the stage the run's step is in while it trains. A click on a chart swaps it for that step's
 * answers (StepAnswers). The inspector tab has the rest, with filters.
 */
import { useDeferredValue } from 'react';
import { useLabState } from '../LabContext';
import { pickedStepOf, selectedRun } from '../state/labStore';
import { LoopDiagram } from './LoopDiagram';
import { LOOP_STAGE_HOLD_MS, runningLoopStage } from './loopStage';
import { SampleCard } from './RolloutInspector';
import { StepAnswers } from './StepAnswers';
import { useHeldValue } from './useHeldValue';

export function CurrentRollout() {
  const picked = useLabState(pickedStepOf);
  return picked === null ? <LatestAnswer /> : <StepAnswers step={picked} />;
}

function LatestAnswer() {
  // Each stage stays lit a while, the last of a step too.
  const running = useLabState((s) => runningLoopStage(s.runningStage, s.selectedRunId));
  const lit = useHeldValue(running, LOOP_STAGE_HOLD_MS);
  const sample = useDeferredValue(useLabState((s) => selectedRun(s)?.samples[0] ?? null));
  return (
    <section className="panel current-rollout" data-testid="current-rollout" aria-labelledby="current-rollout-title">
      <div className="answers-head">
        <h2 id="current-rollout-title">Latest answer</h2>
        {sample !== null && <span className="answers-hint">Click a point on a chart to read that step&rsquo;s answers.</span>}
        <LoopDiagram lit={lit} running={running} />
      </div>
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
