/**
 * The Nmax sweep: one run per Nmax value with the same seed and step budget (the knobs otherwise),
 * trained one after another and each evaluated at every value when it finishes, which fills the
 * train-Nmax by eval-Nmax matrix of ZeroTIR's budget-alignment study. A sweep stops when one of its
 * runs is paused and resumes from the first run not yet trained and evaluated.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { RunStatus } from '../../labWorker/protocol';
import { makeRun, type LabRun } from '../state/labRun';
import type { LabState, LabStore, SweepState } from '../state/labStore';
import { copyConfig } from '../state/urlState';

/** What the sweep needs from the controller. */
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
}

/** Events and command replies travel on different channels: a late status event gets this long. */
const STATUS_SETTLE_MS = 3000;

/** Adds the sweep's runs and makes it the current sweep; false when the knobs are invalid. */
export function queueSweep(host: SweepHost): boolean {
  const config = host.knobs();
  if (!config) return false;
  const { store } = host;
  const nmaxValues = [...store.getState().sweepNmax];
  const id = `sweep-${host.now().toString(36)}`;
  const runIds = nmaxValues.map((nmax, i) => {
    const run = makeRun({
      id: `${id}-${i}`,
      name: `sweep Nmax ${nmax} (seed ${config.seed})`,
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

/** Trains and evaluates the current sweep's remaining runs in order. */
export async function runSweep(host: SweepHost): Promise<void> {
  const { store } = host;
  const sweep = store.getState().sweep;
  if (!sweep || sweep.running || !(await host.ready())) return;
  const setSweep = (patch: Partial<SweepState>) => store.setState((s) => (s.sweep ? { sweep: { ...s.sweep, ...patch } } : {}));
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

/** The run's status once it has stopped, waiting briefly for a status event that trails train()'s reply. */
function settledStatus(store: LabStore, runId: string): Promise<RunStatus | undefined> {
  const stopped = (s: LabState) => {
    const status = s.runs[runId]?.status;
    return status === 'training' ? undefined : status;
  };
  const now = stopped(store.getState());
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(store.getState().runs[runId]?.status);
    }, STATUS_SETTLE_MS);
    const unsubscribe = store.subscribe((s) => {
      const status = stopped(s);
      if (status) {
        clearTimeout(timer);
        unsubscribe();
        resolve(status);
      }
    });
  });
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
