/**
 * The CLI's loop over RL steps, which keeps the last completed step at hand: a step that fails
 * (the sandbox could not start under load, say) leaves the run saved as it stood before that step,
 * so `--resume` continues it exactly instead of losing every step since the start.
 */
import type { GPT } from '../core/model/gpt';
import type { StepRecord } from '../core/rl/trainer';
import type { TrainerProgress } from '../core/rl/trainerState';

/** What the loop needs of a Trainer. */
export interface SteppedTrainer {
  readonly step: number;
  trainStep(): Promise<StepRecord>;
  saveState(): Promise<TrainerProgress>;
}

/** A step's end as it can be saved: a copy of the weights (the caller disposes it) and the trainer's state. */
export interface CompletedStep {
  model: GPT;
  progress: TrainerProgress;
}

export type LoopOutcome = { status: 'done' | 'interrupted'; saved: CompletedStep } | { status: 'failed'; error: unknown; saved: CompletedStep };

export interface LoopHooks {
  /** A completed step, before the next begins. */
  record(r: StepRecord): void | Promise<void>;
  interrupted(): boolean;
}

/** Steps `trainer` (training `model` in place) until `budget`, an interrupt, or a step that throws. */
export async function trainToBudget(trainer: SteppedTrainer, model: GPT, budget: number, hooks: LoopHooks): Promise<LoopOutcome> {
  let saved: CompletedStep = { model: model.copy(), progress: await trainer.saveState() };
  while (trainer.step < budget && !hooks.interrupted()) {
    let record: StepRecord;
    try {
      record = await trainer.trainStep();
    } catch (error) {
      return { status: 'failed', error, saved };
    }
    await hooks.record(record);
    saved.model.dispose();
    saved = { model: model.copy(), progress: await trainer.saveState() };
  }
  return { status: hooks.interrupted() ? 'interrupted' : 'done', saved };
}
