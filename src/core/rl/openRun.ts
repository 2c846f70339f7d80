/**
 * A run's trainer at the point it starts from: the one way the lab's worker (trainerWorker/labSession.ts)
 * and `npm run train` (cli/train.ts, with cli/resumeRun.ts for a stopped run) open a run, new at
 * step 0 or stopped at a checkpoint. The KL reference is the run's start model, never the checkpoint:
 * among the start models at hand, the one whose fingerprint the saved state names; when none is (the
 * lab: a start model not loaded in this page), the first, and a notice says so. A checkpoint of
 * weights only (saved before checkpoints kept the run state) goes on counting from its step with a
 * fresh optimizer and fresh random streams, and a notice says that too.
 */
import type { ExperimentConfig } from '../experiment';
import type { GPT } from '../model/gpt';
import type { ReferenceIdentity, TrainerProgress } from '../run/trainerState';
import type { PythonSandbox } from '../sandbox/protocol';
import type { GradientHelper } from './gradientHelpers';
import { Trainer } from './trainer';

/** A model a run may have started from, with its identity (weightsFingerprint and where it came from). */
export interface StartModel {
  model: GPT;
  identity: ReferenceIdentity;
}

/** Where a run starts. */
export interface RunPoint {
  /** The weights to train, at `step`: the trainer's from here, and disposed if the run cannot open. */
  model: GPT;
  /** 0 for a new run. */
  step: number;
  /** The trainer state saved at `step` and the start model it names; null for a new run or a checkpoint of weights only. */
  saved: (TrainerProgress & { reference: ReferenceIdentity }) | null;
}

export interface OpenedRun {
  trainer: Trainer;
  /** The start model chosen as KL reference. */
  reference: ReferenceIdentity;
  /** What the run could not get back, said to the person. */
  notices: string[];
}

/**
 * The run's trainer at `point`; `startModels` (at least one) are the KL reference's candidates, the
 * fallback first. The trainer copies the one it takes. `gradientHelpers` share its updates' work.
 */
export function openRun(
  config: ExperimentConfig,
  sandbox: PythonSandbox,
  point: RunPoint,
  startModels: readonly StartModel[],
  gradientHelpers: readonly GradientHelper[] = [],
): OpenedRun {
  const { model, step, saved } = point;
  try {
    if (startModels.length === 0) throw new Error('a run needs its start model as KL reference');
    if (saved && saved.step !== step) throw new Error(`the checkpoint holds the run's state at step ${saved.step}, not at step ${step}`);
    const named = saved ? startModels.find((candidate) => candidate.identity.fingerprint === saved.reference.fingerprint) : undefined;
    const reference = named ?? startModels[0];
    const notices: string[] = [];
    if (saved && !named) {
      notices.push(
        `the run's start model (${saved.reference.source}, fingerprint ${saved.reference.fingerprint}) is not loaded here: its KL reference is now the ${reference.identity.source} (${reference.identity.fingerprint})`,
      );
    }
    if (!saved && step > 0) {
      notices.push(`the checkpoint at step ${step} holds weights only (saved before checkpoints kept the run state): the run continues with a fresh optimizer and fresh random streams`);
    }
    const start = saved ? { reference: reference.model, progress: saved } : { reference: reference.model, step };
    const trainer = new Trainer(model, config, sandbox, start, gradientHelpers);
    return { trainer, reference: reference.identity, notices };
  } catch (error) {
    model.dispose();
    throw error;
  }
}
