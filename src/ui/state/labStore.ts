/**
 * The lab's one store (zustand). Its serialisable part is the UrlState (preset, config, backend
 * choice, presenter flag, sweep values), which urlSync.ts mirrors into the URL hash; the rest is
 * what the worker reported (backend, runs, progress) and what the page shows (selection, notices).
 * LabEvents from the worker go through reduceLabEvent, which returns the changes for the next state
 * as new objects and leaves the previous state as it was, but for two growing series that change in
 * place, so that a long run does not copy them at every step (runColumns.ts says what that would
 * cost): a run's metric columns (appendMetrics and truncateColumns give them a new revision) and the
 * pretraining loss (its arrays grow; the new object has the next revision). Charts redraw on those
 * revisions.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { configErrors, type ExperimentConfig } from '../../core/experiment';
import type { StepStageName } from '../../core/rl/stepStages';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { BackendInfo, LabEvent } from '../../trainerWorker/protocol';
import { SAMPLES_KEPT } from '../../core/archive/runChecks';
import type { PassAtOneResult } from '../../core/eval/evalReport';
import type { LabRun } from './labRun';
import { labPreset } from './presets';
import { appendMetrics, truncateColumns } from './runColumns';
import { START_MODELS, startFormatError, type StartFrom } from '../../core/archive/startFrom';
import { screenErrors } from './screenErrors';
import { copyConfig, type UrlState } from './urlState';

export type ProgressTask = 'pretrain' | 'evaluate' | 'sweep';

export interface Progress {
  done: number;
  total: number;
  etaSeconds: number | null;
  detail?: string;
}

export interface Notice {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

export interface SweepState {
  id: string;
  nmaxValues: number[];
  runIds: string[];
  /** Index in nmaxValues of the run now training; nmaxValues.length once all are done. */
  position: number;
  running: boolean;
  startedAt: number;
}

/** The evaluation panel's job and its results for the start models (a run keeps its own). */
export interface PassAtOneState {
  /** The model being evaluated (an evaluation source key), while one is. */
  running: { source: string; cancelling: boolean } | null;
  startModels: Partial<Record<StartFrom, PassAtOneResult>>;
}

/** A run's checkpoint: the whole run state at `step`. */
export interface RunCheckpoint {
  step: number;
  blob: CheckpointBlob;
}

export interface PretrainedBase {
  steps: number;
  checkpoint: CheckpointBlob;
}

export interface LabState extends UrlState {
  worker: 'starting' | 'ready' | 'failed';
  backendInfo: BackendInfo | null;
  /**
   * The latest step the worker timed on the backend it has now (null since the backend changed): a
   * stored step's speed may be another backend's, so the badge shows only this one's.
   */
  timedStep: { runId: string; step: number } | null;
  runs: Record<string, LabRun>;
  /** Run ids, newest first. */
  runOrder: string[];
  /** Stored runs that cannot be shown; deleting one from here deletes it from IndexedDB. */
  brokenRuns: BrokenRun[];
  /** Train's question before it deletes steps past a run's saved state, while it asks. */
  restartQuestion: RestartQuestion | null;
  /** The run the page shows and the controls act on. */
  selectedRunId: string | null;
  /** The run the worker holds (startRun was called for it). */
  loadedRunId: string | null;
  /**
   * Checkpoints saved, imported or dropped in this page, by run: null = the run has none. A run
   * absent here keeps whatever IndexedDB holds for it (restored runs' checkpoints are read lazily).
   */
  checkpoints: Record<string, RunCheckpoint | null>;
  /** A command in flight (buttons wait for it), e.g. 'Starting run'. */
  busy: string | null;
  progress: Partial<Record<ProgressTask, Progress>>;
  pretrainLoss: { step: number[]; loss: number[]; revision: number };
  pretrainedBase: PretrainedBase | null;
  /** Where new runs start: the shipped base model or the one pretrained in this page. */
  baseModel: 'shipped' | 'pretrained';
  notices: Notice[];
  sweep: SweepState | null;
  /** Runs ticked in the run list for the compare view, in the order they were ticked. */
  comparedRunIds: string[];
  passAtOne: PassAtOneState;
  /** The step whose kept answers the answers panel shows (a chart point clicked); null: the newest answer. */
  pickedStep: PickedStep | null;
  /** Where the loaded run's step under way is (its 'stage' events), for the loop diagram; null when none runs. */
  runningStage: RunningStage | null;
}

/** The stage a run's step is in; done: the step is over and, while training, the next one's questions come. */
export interface RunningStage {
  runId: string;
  step: number;
  stage: StepStageName;
  done: boolean;
}

/** A step picked on a chart, of the run shown then: another run shown drops it. */
export interface PickedStep {
  runId: string;
  step: number;
}

export type LabStore = StoreApi<LabState>;

/**
 * Train, Step or Slow motion step on a run whose curves go past its saved state would delete the
 * steps after it: the lab asks first (null when it is not asking).
 */
export interface RestartQuestion {
  runId: string;
  runName: string;
  /** The step its saved state is at; null when it has none (training would start again from step 0). */
  savedStep: number | null;
  /** The last step its curves show. */
  lastStep: number;
}

/** A stored run that does not pass the checks (a bad import kept by an older lab): listed with why, never drawn. */
export interface BrokenRun {
  id: string;
  name: string;
  reason: string;
}

const NOTICES_KEPT = 4;

/** How long a note (not an error) stays on screen: long enough to read twice. */
export const INFO_NOTICE_MS = 12_000;

export function createLabStore(initial: UrlState): LabStore {
  return createStore<LabState>(() => ({
    ...initial,
    config: copyConfig(initial.config),
    worker: 'starting',
    backendInfo: null,
    timedStep: null,
    runs: {},
    runOrder: [],
    brokenRuns: [],
    restartQuestion: null,
    selectedRunId: null,
    loadedRunId: null,
    checkpoints: {},
    busy: null,
    progress: {},
    pretrainLoss: { step: [], loss: [], revision: 0 },
    pretrainedBase: null,
    baseModel: 'shipped',
    notices: [],
    sweep: null,
    comparedRunIds: [],
    passAtOne: { running: null, startModels: {} },
    pickedStep: null,
    runningStage: null,
  }));
}

/**
 * The changes one worker event makes to the state, as new objects; the previous state is left as it
 * was but for the two series that grow in place (the header): a run's columns, the pretraining loss.
 */
export function reduceLabEvent(state: LabState, event: LabEvent): Partial<LabState> {
  switch (event.type) {
    case 'backend':
      return { backendInfo: event.info, timedStep: null };
    case 'status': {
      // Training goes on step after step; any other status means no step is under way.
      const next: Partial<LabState> = event.status === 'training' ? {} : { runningStage: null };
      const run = event.runId === null ? undefined : state.runs[event.runId];
      if (run) next.runs = { ...state.runs, [run.id]: { ...run, status: event.status, step: event.step } };
      if (event.status === 'error') next.notices = withNotice(state.notices, 'error', event.message ?? 'the run stopped with an error');
      return next;
    }
    case 'step': {
      const run = state.runs[event.runId];
      if (!run) return {};
      const { metrics } = event;
      // A step at or before the last recorded one means the worker went back (reset, continue from a
      // checkpoint): what was recorded from there on is replaced.
      const steps = run.columns.step;
      if (steps.length > 0 && metrics.step <= steps[steps.length - 1]) truncateColumns(run.columns, metrics.step);
      appendMetrics(run.columns, metrics);
      const samples = event.samples.length > 0 ? [...[...event.samples].reverse(), ...run.samples].slice(0, SAMPLES_KEPT) : run.samples;
      const updated: LabRun = { ...run, step: metrics.step, samples, revision: run.revision + 1 };
      const running = state.runningStage;
      const stepDone = running !== null && running.runId === run.id && running.step === metrics.step;
      const timedStep = metrics.seconds !== null ? { runId: run.id, step: metrics.step } : state.timedStep;
      return { runs: { ...state.runs, [run.id]: updated }, timedStep, ...(stepDone ? { runningStage: { ...running, done: true } } : {}) };
    }
    case 'stage':
      return { runningStage: { runId: event.runId, step: event.step, stage: event.stage, done: false } };
    case 'progress': {
      const { task, done, total, etaSeconds, detail } = event;
      return { progress: { ...state.progress, [task]: { done, total, etaSeconds, detail } } };
    }
    case 'pretrainStep': {
      const loss = state.pretrainLoss;
      loss.step.push(event.step);
      loss.loss.push(event.loss);
      return { pretrainLoss: { ...loss, revision: loss.revision + 1 } };
    }
    case 'error':
      return { notices: withNotice(state.notices, 'error', event.message) };
  }
}

/**
 * The notices with one more. The worker reports a failure twice (an 'error' event and the rejected
 * call), so a text already contained in the latest notice is dropped, and one that extends it replaces it.
 */
export function withNotice(notices: Notice[], kind: Notice['kind'], text: string): Notice[] {
  const last = notices[notices.length - 1];
  if (last && last.kind === kind && last.text.includes(text)) return notices;
  const kept = last && last.kind === kind && text.includes(last.text) ? notices.slice(0, -1) : notices;
  const id = (last?.id ?? 0) + 1;
  return [...kept, { id, kind, text }].slice(-NOTICES_KEPT);
}

export function notify(store: LabStore, kind: Notice['kind'], text: string): void {
  store.setState((s) => ({ notices: withNotice(s.notices, kind, text) }));
}

export function dismissNotice(store: LabStore, id: number): void {
  store.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}

/** Sets one knob. The value may be invalid: the field shows configErrors' message, nothing is sent. */
export function setKnob<K extends keyof ExperimentConfig>(store: LabStore, key: K, value: ExperimentConfig[K]): void {
  store.setState((s) => ({ config: { ...s.config, [key]: value } }));
}

/**
 * The knobs as a run gets them, if configErrors passes them and the start model writes their format;
 * else null and a notice (the fields show the messages). The one check: no knob reaches a worker
 * without it, and the worker does not check again.
 */
export function validKnobs(store: LabStore): ExperimentConfig | null {
  const { config, startFrom } = store.getState();
  const startError = startFormatError(startFrom, config.format);
  const errors = [...Object.values(screenErrors(configErrors(config))), ...(startError ? [startError] : [])];
  if (errors.length > 0) {
    notify(store, 'error', `fix the marked fields first: ${errors.join('; ')}`);
    return null;
  }
  return copyConfig(config);
}

export function choosePreset(store: LabStore, name: string): void {
  const preset = labPreset(name);
  if (!preset) return;
  store.setState((s) => ({
    preset: name,
    // The format stays the one the start model writes (startFrom.ts).
    config: { ...copyConfig(preset.config), format: START_MODELS[s.startFrom].format },
    sweepNmax: preset.sweepNmax ? [...preset.sweepNmax] : s.sweepNmax,
  }));
}

/** Chooses where new runs start, and the format that model writes. */
export function chooseStart(store: LabStore, start: StartFrom): void {
  store.setState((s) => ({ startFrom: start, config: { ...s.config, format: START_MODELS[start].format } }));
}

export function putRun(store: LabStore, run: LabRun): void {
  store.setState((s) => ({
    runs: { ...s.runs, [run.id]: run },
    runOrder: s.runOrder.includes(run.id) ? s.runOrder : [run.id, ...s.runOrder],
  }));
}

export function patchRun(store: LabStore, id: string, patch: Partial<LabRun>): void {
  store.setState((s) => {
    const run = s.runs[id];
    return run ? { runs: { ...s.runs, [id]: { ...run, ...patch } } } : {};
  });
}

/** Sets (or, with null, drops) a run's checkpoint, and the step the run shows it saved at. */
export function setRunCheckpoint(store: LabStore, id: string, checkpoint: RunCheckpoint | null): void {
  store.setState((s) => {
    const run = s.runs[id];
    if (!run) return {};
    return {
      runs: { ...s.runs, [id]: { ...run, checkpointStep: checkpoint?.step ?? null } },
      checkpoints: { ...s.checkpoints, [id]: checkpoint },
    };
  });
}

export function removeRun(store: LabStore, id: string): void {
  store.setState((s) => {
    const { [id]: _removed, ...runs } = s.runs;
    const { [id]: _checkpoint, ...checkpoints } = s.checkpoints;
    return {
      runs,
      checkpoints,
      runOrder: s.runOrder.filter((r) => r !== id),
      selectedRunId: s.selectedRunId === id ? null : s.selectedRunId,
      loadedRunId: s.loadedRunId === id ? null : s.loadedRunId,
    };
  });
}

/** Ticks or unticks a run for the compare view. */
export function toggleCompared(store: LabStore, id: string): void {
  store.setState((s) => ({
    comparedRunIds: s.comparedRunIds.includes(id) ? s.comparedRunIds.filter((r) => r !== id) : [...s.comparedRunIds, id],
  }));
}

/** The ticked runs that still exist, in the order they were ticked. */
export function comparedRuns(state: LabState): LabRun[] {
  return state.comparedRunIds.map((id) => state.runs[id]).filter((r): r is LabRun => r !== undefined);
}

/** Shows `step`'s kept answers for the shown run (null: back to its newest answer). */
export function pickStep(store: LabStore, step: number | null): void {
  store.setState((s) => ({ pickedStep: step === null || s.selectedRunId === null ? null : { runId: s.selectedRunId, step } }));
}

/** The step picked on the shown run, or null. */
export function pickedStepOf(state: LabState): number | null {
  const picked = state.pickedStep;
  return picked !== null && picked.runId === state.selectedRunId ? picked.step : null;
}

export function selectedRun(state: LabState): LabRun | null {
  return state.selectedRunId === null ? null : (state.runs[state.selectedRunId] ?? null);
}
