/**
 * The Nmax sweep: one run per Nmax value with the same seed and step budget (the knobs otherwise),
 * each evaluated at every value when it finishes, which fills the train-Nmax by eval-Nmax matrix of
 * ZeroTIR's budget-alignment study. Where the machine has cores for them (sweepLanes.ts) the arms
 * train side by side, one trainer worker each, taking the next arm as they finish one; else one after
 * another in the lab's worker. An arm's figures do not depend on which: the same seed and config
 * give the same run. A sweep stops when one of its runs is paused and resumes from the runs not yet
 * trained and evaluated.
 */
import type { ExperimentConfig } from '../../core/experiment';
import { makeRun, uniqueRunName, type LabRun } from '../state/labRun';
import type { LabState, LabStore, SweepState } from '../state/labStore';
import { copyConfig } from '../state/urlState';
import { settledStatus } from './settledStatus';

/** What the sweep needs from the lab (sweepCommands.ts answers it). */
export interface SweepHost {
  store: LabStore;
  now(): number;
  ready(): Promise<boolean>;
  /** The knobs, if configErrors passes them (else null, with a notice). */
  knobs(): ExperimentConfig | null;
  addRun(run: LabRun): void;
  /** Trains the shown run until it finishes or is paused. */
  train(): Promise<void>;
  evaluateRun(runId: string): Promise<void>;
  /** How many arms may train at once (1: one after another, through train and evaluateRun). */
  lanes(armsLeft: number): number;
  /**
   * A worker of its own that trains and evaluates arms one after another (armWorker.ts); null if it
   * could not start. Only asked for when lanes() is above 1.
   */
  openArmWorker(): Promise<SweepArmWorker | null>;
  /** Pause was pressed during the sweep: no further arm starts. */
  pauseRequested(): boolean;
}

/** What a sweep asks of an arm's worker. */
export interface SweepArmWorker {
  /** Resolves to 'finished' once the arm is trained and evaluated, else to how its training stopped. */
  trainAndEvaluate(runId: string, nmaxValues: number[]): Promise<string>;
  close(): void;
}

/** Adds the sweep's runs and makes it the current sweep; false when the knobs are invalid. */
export function queueSweep(host: SweepHost): boolean {
  const config = host.knobs();
  if (!config) return false;
  const { store } = host;
  const nmaxValues = [...store.getState().sweepNmax];
  const id = `sweep-${host.now().toString(36)}`;
  // A second sweep of the same seed (other steps, say) must not make look-alikes of the first's arms.
  const taken = Object.values(store.getState().runs).map((r) => r.name);
  const runIds = nmaxValues.map((nmax, i) => {
    const name = uniqueRunName(`sweep Nmax ${nmax} (seed ${config.seed})`, taken);
    taken.push(name);
    const run = makeRun({
      id: `${id}-${i}`,
      name,
      preset: store.getState().preset,
      config: { ...copyConfig(config), nmax },
      createdAt: host.now() + i,
      sweepId: id,
    });
    host.addRun(run);
    return run.id;
  });
  store.setState({ sweep: { id, nmaxValues, runIds, position: 0, running: false, startedAt: host.now() } });
  return true;
}

/** Trains and evaluates the current sweep's remaining runs, side by side where lanes() allows. */
export async function runSweep(host: SweepHost): Promise<void> {
  const { store } = host;
  const sweep = store.getState().sweep;
  if (!sweep || sweep.running || !(await host.ready())) return;
  const setSweep = (patch: Partial<SweepState>) => store.setState((s) => (s.sweep ? { sweep: { ...s.sweep, ...patch } } : {}));
  const left = sweep.runIds.filter((id) => !armDone(store.getState(), id));
  const lanes = host.lanes(left.length);
  if (lanes > 1) {
    setSweep({ running: true });
    try {
      await runSweepInLanes(host, sweep, left, lanes);
    } finally {
      setSweep({ running: false, position: firstNotDone(store.getState(), sweep.runIds) });
    }
    return;
  }
  setSweep({ running: true });
  const clock: SweepClock = { startedAt: host.now(), stepsAtStart: sweepSteps(store.getState(), sweep.runIds).done, evaluationSeconds: 0, evaluations: 0 };
  let position = sweep.position;
  let shown = '';
  // The estimate follows every step, not only each finished run (issue 26: it was missing until the first run ended, then frozen).
  const report = () => {
    const key = `${position}:${sweepSteps(store.getState(), sweep.runIds).done}`;
    if (key === shown) return;
    shown = key;
    reportProgress(host, position, clock);
  };
  const unsubscribe = store.subscribe(report);
  try {
    for (let i = sweep.position; i < sweep.runIds.length; i++) {
      if (host.pauseRequested()) return;
      position = i;
      report();
      const runId = sweep.runIds[i];
      const before = store.getState().runs[runId]?.status;
      if (before === undefined || before === 'error') return;
      if (before !== 'finished') {
        store.setState({ selectedRunId: runId });
        await host.train();
        if ((await settledStatus(store, runId)) !== 'finished') return;
      }
      if (!store.getState().runs[runId]?.evaluation) {
        const evaluationStart = host.now();
        await host.evaluateRun(runId);
        clock.evaluationSeconds += (host.now() - evaluationStart) / 1000;
        clock.evaluations++;
      }
      if (!store.getState().runs[runId]?.evaluation) return;
      setSweep({ position: i + 1 });
    }
    position = sweep.runIds.length;
    report();
  } finally {
    unsubscribe();
    setSweep({ running: false });
  }
}

/**
 * The arms `left` on `lanes` workers of their own: each takes the next arm when it has finished one,
 * until none is left or one stops short of finished (Pause stops every lane's arm; an error stops the
 * lanes from taking new arms). The lab's worker may hold an arm loaded from before: it is reloaded
 * from its saved state before it trains there again.
 */
async function runSweepInLanes(host: SweepHost, sweep: SweepState, left: string[], lanes: number): Promise<void> {
  const { store } = host;
  const queue = [...left];
  const training = new Set<string>();
  const startedAt = host.now();
  const stepsAtStart = sweepSteps(store.getState(), sweep.runIds).done;
  let shown = '';
  const report = () => {
    const state = store.getState();
    const steps = sweepSteps(state, sweep.runIds);
    const done = sweep.runIds.filter((id) => armDone(state, id)).length;
    const nmaxTraining = sweep.runIds.flatMap((id, i) => (training.has(id) ? [sweep.nmaxValues[i]] : []));
    const key = `${done}:${steps.done}:${nmaxTraining.join()}`;
    if (key === shown) return;
    shown = key;
    const trained = steps.done - stepsAtStart;
    // Evaluations happen between a lane's arms, so the rate of steps over the wall time carries them.
    const etaSeconds = trained > 0 ? ((host.now() - startedAt) / 1000 / trained) * (steps.total - steps.done) : null;
    const arms = nmaxTraining.length > 1 ? `Nmax ${nmaxTraining.join(' and ')} side by side` : `Nmax ${nmaxTraining.join('')}`;
    const detail = done < sweep.runIds.length ? `training ${arms} · step ${steps.done} of ${steps.total} in all` : 'done';
    store.setState((s) => ({ progress: { ...s.progress, sweep: { done, total: sweep.runIds.length, etaSeconds, detail } } }));
  };
  const unsubscribe = store.subscribe(report);
  let stopped = false;
  const lane = async () => {
    const worker = await host.openArmWorker();
    if (!worker) {
      stopped = true;
      return;
    }
    try {
      while (!stopped && !host.pauseRequested() && queue.length > 0) {
        const runId = queue.shift()!;
        if (!store.getState().runs[runId]) continue;
        training.add(runId);
        if (store.getState().loadedRunId === runId) store.setState({ loadedRunId: null });
        if (store.getState().selectedRunId === null || !training.has(store.getState().selectedRunId!)) store.setState({ selectedRunId: runId });
        report();
        const ended = await worker.trainAndEvaluate(runId, sweep.nmaxValues);
        training.delete(runId);
        if (ended !== 'finished') stopped = true;
      }
    } finally {
      worker.close();
    }
  };
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
    report();
  } finally {
    unsubscribe();
  }
}

function armDone(state: LabState, runId: string): boolean {
  const run = state.runs[runId];
  return run !== undefined && run.status === 'finished' && run.evaluation !== null;
}

/** The index of the first run not yet trained and evaluated (the length when all are). */
function firstNotDone(state: LabState, runIds: readonly string[]): number {
  const at = runIds.findIndex((id) => !armDone(state, id));
  return at === -1 ? runIds.length : at;
}

/** Steps trained of the steps budgeted, over all of the sweep's runs. */
function sweepSteps(state: LabState, runIds: readonly string[]): { done: number; total: number } {
  const runs = runIds.map((id) => state.runs[id]).filter((r): r is LabRun => r !== undefined);
  return {
    done: runs.reduce((sum, r) => sum + Math.min(r.step, r.config.steps), 0),
    total: runs.reduce((sum, r) => sum + r.config.steps, 0),
  };
}

/** What the estimate is made from: the time since this stretch of the sweep began, and its evaluations' share of it. */
interface SweepClock {
  startedAt: number;
  stepsAtStart: number;
  evaluationSeconds: number;
  evaluations: number;
}

/**
 * Runs done of the sweep's runs, and the time left: the steps left at the rate of the steps trained
 * since this stretch began (their runs' startups included), plus the evaluations left at the mean
 * time of those done. Null before the first step.
 */
function reportProgress(host: SweepHost, done: number, clock: SweepClock): void {
  const state = host.store.getState();
  const sweep = state.sweep;
  const runIds = sweep?.runIds ?? [];
  const steps = sweepSteps(state, runIds);
  const trained = steps.done - clock.stepsAtStart;
  const trainingSeconds = (host.now() - clock.startedAt) / 1000 - clock.evaluationSeconds;
  const evaluationsLeft = runIds.filter((id) => !state.runs[id]?.evaluation).length;
  const evaluationEta = clock.evaluations > 0 ? (clock.evaluationSeconds / clock.evaluations) * evaluationsLeft : 0;
  const etaSeconds = trained > 0 ? (trainingSeconds / trained) * (steps.total - steps.done) + evaluationEta : null;
  const detail = done < runIds.length ? `training Nmax ${sweep?.nmaxValues[done]} · step ${steps.done} of ${steps.total} in all` : 'done';
  host.store.setState((s) => ({ progress: { ...s.progress, sweep: { done, total: runIds.length, etaSeconds, detail } } }));
}

/** The newest sweep among restored runs, resumable from its first run not yet trained and evaluated. */
export function latestSweep(runs: LabRun[]): SweepState | null {
  const newest = runs.find((r) => r.sweepId !== null);
  if (!newest?.sweepId) return null;
  const members = runs.filter((r) => r.sweepId === newest.sweepId).sort((a, b) => a.createdAt - b.createdAt);
  const position = members.findIndex((r) => r.status !== 'finished' || r.evaluation === null);
  return {
    id: newest.sweepId,
    nmaxValues: members.map((r) => r.config.nmax),
    runIds: members.map((r) => r.id),
    position: position === -1 ? members.length : position,
    running: false,
    startedAt: members[0].createdAt,
  };
}
