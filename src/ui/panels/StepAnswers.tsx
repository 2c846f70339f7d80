/**
 * The kept answers of the step picked on a chart (linked views): which step, its answers one at a
 * time behind numbered chips (✓ right, ✗ wrong), earlier and later steps, and the way back to the
 * newest answer. One answer at a time keeps the panel the height of "Latest answer", so nothing
 * below it moves.
 */
import { useDeferredValue, useState } from 'react';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import { useLab, useLabState } from '../LabContext';
import { pickStep, selectedRun } from '../state/labStore';
import { SAMPLES_KEPT } from '../../core/archive/runChecks';
import { answersOfStep, neighbourStepWithAnswers, whyNoAnswers } from '../state/stepAnswers';
import { SampleCard } from './RolloutInspector';

export function StepAnswers({ step }: { step: number }) {
  const { store } = useLab();
  const samples = useDeferredValue(useLabState((s) => selectedRun(s)?.samples ?? null)) ?? [];
  const samplesPerStep = useLabState((s) => selectedRun(s)?.config.samplesPerStep ?? 0);
  const answers = answersOfStep(samples, step);
  const earlier = neighbourStepWithAnswers(samples, step, -1);
  const later = neighbourStepWithAnswers(samples, step, 1);

  return (
    <section className="panel current-rollout" data-testid="current-rollout" aria-labelledby="current-rollout-title">
      <div className="answers-head">
        <h2 id="current-rollout-title">
          Answers of step <span data-testid="picked-step">{step}</span>
        </h2>
        <span className="answers-nav">
          <button type="button" className="small" data-testid="earlier-step" disabled={earlier === null} onClick={() => pickStep(store, earlier)}>
            ◀ step {earlier ?? '–'}
          </button>
          <button type="button" className="small" data-testid="later-step" disabled={later === null} onClick={() => pickStep(store, later)}>
            step {later ?? '–'} ▶
          </button>
          <button type="button" className="small" data-testid="latest-answer" onClick={() => pickStep(store, null)}>
            Latest answer
          </button>
        </span>
      </div>
      {answers.length === 0 ? (
        <p className="empty" data-testid="no-kept-answers">
          {whyNoAnswers(step, samplesPerStep, SAMPLES_KEPT)}
        </p>
      ) : (
        <AnswerChooser key={step} answers={answers} />
      )}
    </section>
  );
}

function AnswerChooser({ answers }: { answers: RolloutSample[] }) {
  const [chosen, setChosen] = useState(0);
  const shown = answers[Math.min(chosen, answers.length - 1)];
  return (
    <>
      <div className="filters" role="group" aria-label="Answers of this step">
        {answers.map((answer, i) => (
          <button
            type="button"
            key={i}
            className={i === chosen ? 'chip chip-on' : 'chip'}
            aria-pressed={i === chosen}
            data-testid="step-answer-chip"
            onClick={() => setChosen(i)}
          >
            answer {i + 1} {answer.reward > 0 ? '✓' : '✗'}
          </button>
        ))}
      </div>
      <ol className="samples">
        <SampleCard sample={shown} testId="step-answer" />
      </ol>
    </>
  );
}
