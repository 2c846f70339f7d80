/**
 * The CLI's loop over RL steps, which keeps the last completed step at hand: a step that fails
 * (the sandbox could not start under load, say) or is interrupted (Ctrl-C, SIGTERM, SIGHUP) leaves
 * the run saved as it stood before that step, so `--resume` continues it exactly instead of losing
 * every step since the start.
 */
import type { GPT } from '../core/model/gpt';
import type { StepRecord } from '../core/rl/trainer';
import type { TrainerProgress } from '../core/run/trainerState';

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

export type LoopOutcome = { status: 'done'; saved: CompletedStep } | { status: 'interrupted'; saved: CompletedStep } | { status: 'failed'; error: unknown; saved: CompletedStep };

/**
 * Ctrl-C (or a SIGTERM, SIGHUP) as the loop sees it: a flag, and a promise that settles when it is
 * set. A terminal's Ctrl-C reaches the whole process group (timeout and systemd signal the group
 * or cgroup too), so the sandbox's interpreters die with it and the step in flight would
 * count their deaths as the programs' results: a step not finished when the flag is set is
 * abandoned, never recorded. The CLI hears the signal before any interpreter's exit (both come
 * through libuv's signal pipe, the group's signal before the child's SIGCHLD), so a step that
 * finished with the flag unset saw no such death.
 */
export class Interrupt {
  requested = false;
  /** The first signal heard: the exit code says which one stopped the run. */
  signal: NodeJS.Signals | null = null;
  readonly signalled: Promise<void>;
  private resolve!: () => void;

  constructor() {
    this.signalled = new Promise((resolve) => (this.resolve = resolve));
  }

  request(signal: NodeJS.Signals = 'SIGINT'): void {
    this.signal ??= signal;
    this.requested = true;
    this.resolve();
  }
}

const ABANDONED = Symbol('abandoned');

/**
 * `work`'s result, or ABANDONED when the interrupt comes first; abandoned work is left to settle
 * unobserved (Promise.race handles its rejection), and the CLI exits without waiting for it.
 */
export function unlessInterrupted<T>(work: Promise<T>, interrupt: Interrupt): Promise<T | typeof ABANDONED> {
  return Promise.race([work, interrupt.signalled.then((): typeof ABANDONED => ABANDONED)]);
}

export function isAbandoned<T>(result: T | typeof ABANDONED): result is typeof ABANDONED {
  return result === ABANDONED;
}

export interface LoopHooks {
  /** A completed step, before the next begins. */
  record(r: StepRecord): void | Promise<void>;
  /** The state after each completed step (the loop disposes its weights later): where the caller saves every N steps. */
  completed?(saved: CompletedStep): void | Promise<void>;
  interrupt: Interrupt;
}

/** Steps `trainer` (training `model` in place) until `budget`, an interrupt, or a step that throws. */
export async function trainToBudget(trainer: SteppedTrainer, model: GPT, budget: number, hooks: LoopHooks): Promise<LoopOutcome> {
  const { interrupt } = hooks;
  let saved: CompletedStep = { model: model.copy(), progress: await trainer.saveState() };
  while (trainer.step < budget && !interrupt.requested) {
    let record: StepRecord | typeof ABANDONED;
    try {
      record = await unlessInterrupted(trainer.trainStep(), interrupt);
    } catch (error) {
      if (interrupt.requested) break;
      return { status: 'failed', error, saved };
    }
    if (isAbandoned(record) || interrupt.requested) break;
    await hooks.record(record);
    saved.model.dispose();
    saved = { model: model.copy(), progress: await trainer.saveState() };
    await hooks.completed?.(saved);
  }
  return { status: interrupt.requested ? 'interrupted' : 'done', saved };
}
