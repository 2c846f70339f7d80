/**
 * The question Train, Step or Slow motion step asks before deleting steps
 * (lab/stepsPastCheckpoint.ts): the run's curves go past its saved state, so going on from that
 * state would redraw them. Keeping the curves is the first choice, as nothing a person has watched
 * should vanish without being asked.
 */
import { useLab, useLabState } from '../LabContext';

export function RestartQuestion() {
  const { controller } = useLab();
  const question = useLabState((s) => s.restartQuestion);
  if (!question) return null;
  const { runName, savedStep, lastStep } = question;
  const from = savedStep ?? 0;
  const lost = lastStep - from === 1 ? `step ${lastStep}` : `steps ${from + 1} to ${lastStep}`;
  return (
    <section
      className="restart-question"
      role="alertdialog"
      aria-labelledby="restart-question-text"
      data-testid="restart-question"
      onKeyDown={(e) => e.key === 'Escape' && controller.answerRestart('cancel')}
    >
      <p id="restart-question-text">
        {savedStep === null
          ? `“${runName}” has curves to step ${lastStep} but no saved training state (the page closed before it was saved): training it starts again from step 0.`
          : `“${runName}” has curves to step ${lastStep}, but its training state was last saved at step ${savedStep} (the page closed before the rest was saved): training goes on from step ${savedStep}.`}
      </p>
      <div className="buttons">
        <button type="button" className="primary" data-testid="restart-keep" onClick={() => controller.answerRestart('keep')} autoFocus>
          Keep these curves as a finished run, and train a copy from step {from}
        </button>
        <button type="button" className="danger" data-testid="restart-drop" onClick={() => controller.answerRestart('drop')}>
          Delete {lost} and train on
        </button>
        <button type="button" data-testid="restart-cancel" onClick={() => controller.answerRestart('cancel')}>
          Cancel
        </button>
      </div>
    </section>
  );
}
