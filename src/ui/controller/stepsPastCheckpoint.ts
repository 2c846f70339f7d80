/**
 * Before a run is loaded to train on: when its curves go past its saved state (the page closed
 * before the save of its last steps landed, or a run file exported between saves), going on would
 * delete those steps, so the person is asked first (restartQuestion in the store, shown by
 * panels/RestartQuestion.tsx): keep the curves as a finished run and train a copy from the saved
 * step, delete the steps past it, or do nothing.
 */
import { newRunId, uniqueRunName, type LabRun } from '../state/labRun';
import { notify, patchRun, type LabStore } from '../state/labStore';
import type { RunCheckpoints } from './runCheckpoints';
import { addRunFromSaved } from './shownRun';

/** How Train, Step or Slow motion step may go on with a run whose curves run past its saved state (RestartQuestion). */
export type RestartAnswer = 'keep' | 'drop' | 'cancel';

export class StepsPastCheckpoint {
  /** Resolves the question Train asked before deleting steps (restartQuestion in the store). */
  private answerQuestion: ((answer: RestartAnswer) => void) | null = null;

  constructor(
    private readonly store: LabStore,
    private readonly now: () => number,
    private readonly checkpoints: RunCheckpoints,
  ) {}

  /** The run to train (`run`, or the copy that goes on from its saved step), or null for nothing. */
  async runToTrain(run: LabRun): Promise<LabRun | null> {
    if (this.store.getState().restartQuestion !== null) return null;
    const saved = await this.checkpoints.stored(run.id);
    const savedStep = saved?.step ?? null;
    const lastStep = run.columns.step.at(-1) ?? 0;
    if (lastStep <= (savedStep ?? 0)) return run;
    const answer = await new Promise<RestartAnswer>((resolve) => {
      this.answerQuestion = resolve;
      this.store.setState({ restartQuestion: { runId: run.id, runName: run.name, savedStep, lastStep } });
    });
    this.answerQuestion = null;
    this.store.setState({ restartQuestion: null });
    const runs = this.store.getState().runs;
    if (answer === 'cancel' || !runs[run.id]) return null;
    if (answer === 'drop') return runs[run.id];
    patchRun(this.store, run.id, { status: 'finished' });
    const step = savedStep ?? 0;
    const source = this.store.getState().runs[run.id];
    const copy = addRunFromSaved(this.store, source, saved, {
      id: newRunId(this.now()),
      name: uniqueRunName(`${source.name} from step ${step}`, Object.values(this.store.getState().runs).map((r) => r.name)),
      preset: source.preset,
      config: source.config,
      createdAt: this.now(),
      startFrom: source.startFrom,
    });
    notify(this.store, 'info', `"${source.name}" is kept as it was, finished at step ${lastStep}; "${copy.name}" trains on from step ${step}`);
    return copy;
  }

  /** Answers the question Train asked before deleting a run's steps past its saved state. */
  answer(answer: RestartAnswer): void {
    this.answerQuestion?.(answer);
  }
}
