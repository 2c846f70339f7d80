/**
 * The play bar: Train/Pause, Step, Slow motion step, Reset, Fork, New run, the step counter and the run's progress
 * with an ETA. It sticks to the top of the window and keeps one height whatever the run does, so
 * the charts below never move when training starts.
 */
import { useEffect, useState } from 'react';
import { useLab, useLabShallow, useLabState } from '../LabContext';
import { GLOSSARY } from '../glossary';
import { selectedRun, type LabState } from '../state/labStore';
import { shortcutCommand } from '../state/shortcuts';
import { playBarStatus } from './playBarStatus';
import { ProgressBar } from './Progress';
import { SlowMotionStep } from './SlowMotionStep';
import { etaFromArrivals, withArrival, type StepArrival } from './stepEta';
import { useShortcut } from './useShortcut';

/** Seconds left from the step figures alone: the estimate until two steps have been seen arriving. */
function etaSeconds(state: LabState): number | null {
  const run = selectedRun(state);
  if (!run) return null;
  const { generateSeconds, executeSeconds, updateSeconds } = run.columns;
  const recent: number[] = [];
  for (let i = Math.max(0, generateSeconds.length - 10); i < generateSeconds.length; i++) {
    const [generate, execute, update] = [generateSeconds[i], executeSeconds[i], updateSeconds[i]];
    if (generate !== null && execute !== null && update !== null) recent.push(generate + execute + update);
  }
  if (recent.length === 0) return null;
  const perStep = recent.reduce((sum, seconds) => sum + seconds, 0) / recent.length;
  return perStep * Math.max(0, run.config.steps - run.step);
}

export function Controls({ compact = false }: { compact?: boolean }) {
  const { controller } = useLab();
  const run = useLabShallow((s) => {
    const r = selectedRun(s);
    return r ? { id: r.id, name: r.name, status: r.status, step: r.step, steps: r.config.steps } : null;
  });
  const worker = useLabState((s) => s.worker);
  const ready = worker === 'ready';
  const busy = useLabState((s) => s.busy);
  const figuresEta = useLabState(etaSeconds);
  // A sweep's arms may train in workers of their own while the shown run waits: Pause stops them too.
  const sweepRunning = useLabState((s) => s.sweep?.running ?? false);
  const training = run?.status === 'training' || sweepRunning;
  // When each step of the shown run arrived while training, for an ETA in wall time (stepEta.ts).
  const [arrivals, setArrivals] = useState<{ runId: string | null; list: StepArrival[] }>({ runId: null, list: [] });
  const runId = run?.id ?? null;
  const runStep = run?.step ?? 0;
  useEffect(() => {
    if (runId === null || !training) return;
    const at = performance.now();
    setArrivals((previous) => ({ runId, list: withArrival(previous.runId === runId ? previous.list : [], runStep, at) }));
  }, [runId, runStep, training]);
  const eta = (run && arrivals.runId === run.id ? etaFromArrivals(arrivals.list, run.steps) : null) ?? figuresEta;
  // A step in slow motion holds the worker until its last Next: nothing else starts meanwhile.
  const [slowMotion, setSlowMotion] = useState(false);
  const idle = ready && busy === null && !training && !slowMotion;
  // Reset deletes the run's curves and checkpoint: past step 0 it asks first.
  const [confirmingReset, setConfirmingReset] = useState(false);
  const reset = () => {
    setConfirmingReset(false);
    void controller.reset();
  };
  const now = { idle, training };
  useShortcut('trainOrPause', () => {
    const command = shortcutCommand('trainOrPause', now);
    if (command === 'pause') void controller.pause();
    else if (command === 'train') void controller.train();
  });
  useShortcut('step', () => {
    if (shortcutCommand('step', now) === 'step') void controller.step();
  });

  return (
    <section className="controls play-bar" aria-label="Controls" data-testid="play-bar">
      <div className="buttons">
        <button type="button" className="primary" data-testid="train-button" disabled={!idle} onClick={() => void controller.train()} title="Train step after step (key: Space)">
          ▶ Train
        </button>
        <button type="button" data-testid="pause-button" disabled={!training} onClick={() => void controller.pause()} title="Stop after the step under way (key: Space)">
          ❚❚ Pause
        </button>
        <button type="button" data-testid="step-button" disabled={!idle} onClick={() => void controller.step()} title="One round of practice: answer, score, learn (key: S)">
          Step
        </button>
        <SlowMotionStep disabled={!idle} onActiveChange={setSlowMotion} />
        <span className="reset-holder">
          <button
            type="button"
            data-testid="reset-button"
            disabled={!idle || !run}
            aria-expanded={confirmingReset}
            onClick={() => (run && run.step > 0 ? setConfirmingReset(!confirmingReset) : reset())}
            title="Back to step 0 with the knobs as set"
          >
            Reset
          </button>
          {confirmingReset && run && idle && (
            <span
              className="confirm-popover"
              role="alertdialog"
              aria-label="Reset the run?"
              data-testid="reset-confirm"
              onKeyDown={(e) => e.key === 'Escape' && setConfirmingReset(false)}
            >
              <span>
                Reset “{run.name}” to step 0? Its curves, answers and checkpoint ({run.step === 1 ? '1 step' : `${run.step} steps`}) are deleted.
              </span>
              <button type="button" className="danger" data-testid="reset-confirm-yes" onClick={reset} autoFocus>
                Reset
              </button>
              <button type="button" data-testid="reset-confirm-no" onClick={() => setConfirmingReset(false)}>
                Keep the run
              </button>
            </span>
          )}
        </span>
        {!compact && (
          <>
            <button type="button" data-testid="fork-button" disabled={!idle || !run} onClick={() => void controller.fork()} title={`Fork: ${GLOSSARY.Fork}`}>
              Fork
            </button>
            <button type="button" data-testid="new-run-button" disabled={!idle || !run} onClick={() => controller.newRunFromKnobs()} title="The next Train starts a fresh run from the knobs">
              New run
            </button>
          </>
        )}
      </div>
      <div className="run-line">
        <span className="step-label">
          step <span data-testid="step-counter">{run?.step ?? 0}</span>
          {run ? ` / ${run.steps}` : ''}
        </span>
        <span className={`status status-${run?.status ?? 'none'}`} data-testid="run-status">
          {playBarStatus({ worker, busy, runStatus: run?.status ?? null, slowMotion })}
        </span>
      </div>
      {/* Always drawn (empty before a run), so the bar's height does not change when a run starts. */}
      <ProgressBar label={run?.name ?? 'no run'} done={run?.step ?? 0} total={run?.steps ?? 0} etaSeconds={training ? eta : null} testId="run-progress" />
    </section>
  );
}
