/**
 * SandboxPool: many concurrent runs over N interpreters, for the trainer and the lab alike.
 *
 * Runs beyond N wait in a FIFO queue. An interpreter is recycled (terminated and replaced) when it
 * says needsRecycle (a kill, a timeout it could not interrupt, a fatal error, a heap over its
 * threshold), after every K runs, or when its run() rejects. Replacements come from a warm
 * standby, so a caller waits for a cold start only when no standby is ready; the standby is refilled
 * in the background, after any cold starts the callers are waiting on.
 */
import {
  DEFAULT_RUN_OPTIONS,
  type Interpreter,
  type InterpreterFactory,
  type PythonSandbox,
  type RunOptions,
  type RunResult,
  runOptionsProblem,
} from './protocol';
import { diedResult } from './runResult';

export interface SandboxPoolOptions {
  /** N: interpreters running calls at once. */
  size: number;
  /** Started interpreters kept ready to replace a recycled one; 0 turns the standby off. */
  standby: number;
  /** K: an interpreter is recycled after this many runs (Infinity: never for that reason). */
  recycleAfterRuns: number;
  /** Tries of the factory before a start counts as failed: a cold start can time out on a loaded machine. */
  startAttempts: number;
  /** Options for the fields a caller of run() leaves out. */
  runOptions: RunOptions;
}

export const DEFAULT_POOL_OPTIONS: SandboxPoolOptions = {
  size: 1,
  standby: 1,
  recycleAfterRuns: 500,
  startAttempts: 3,
  runOptions: DEFAULT_RUN_OPTIONS,
};

/** Counters since the pool was made; a snapshot. */
export interface SandboxPoolStats {
  /** Interpreters started for a waiting caller (not for the standby). */
  coldStarts: number;
  standbyStarts: number;
  /** Times a standby took a slot instead of a cold start. */
  standbyPromotions: number;
  recycled: number;
  queued: number;
  busy: number;
  idle: number;
  standbyReady: number;
}

interface Job {
  code: string;
  options: RunOptions;
  resolve: (result: RunResult) => void;
  reject: (error: unknown) => void;
}

export class SandboxPool implements PythonSandbox {
  private readonly options: SandboxPoolOptions;
  private readonly queue: Job[] = [];
  private readonly idle: Interpreter[] = [];
  private readonly busy = new Set<Interpreter>();
  private readonly standby: Interpreter[] = [];
  private readonly starting = new Set<Promise<unknown>>();
  private readonly terminating = new Set<Promise<unknown>>();
  private slotStarts = 0;
  private standbyStartsInFlight = 0;
  /** After a standby start fails, refilling waits for the next successful start. */
  private standbyPaused = false;
  /** The last failed start, for warmUp() to report. */
  private startError: unknown;
  private closed = false;
  private readonly counters = { coldStarts: 0, standbyStarts: 0, standbyPromotions: 0, recycled: 0 };

  constructor(
    private readonly factory: InterpreterFactory,
    options: Partial<SandboxPoolOptions> = {},
  ) {
    this.options = { ...DEFAULT_POOL_OPTIONS, ...definedFields(options) };
    if (!(this.options.size >= 1)) throw new Error(`SandboxPool size must be at least 1, got ${this.options.size}`);
  }

  run(code: string, options: Partial<RunOptions> = {}): Promise<RunResult> {
    if (this.closed) return Promise.reject(new Error('SandboxPool is closed'));
    const runOptions = { ...this.options.runOptions, ...definedFields(options) };
    const problem = runOptionsProblem(runOptions);
    if (problem) return Promise.reject(new Error(`SandboxPool: ${problem}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ code, options: runOptions, resolve, reject });
      this.pump();
    });
  }

  /**
   * Fills every slot (from the standby first) and the standby now, and waits until they are ready,
   * rather than starting them on the first runs.
   */
  async warmUp(): Promise<void> {
    while (!this.closed) {
      while (this.activeCount() < this.options.size && this.standby.length > 0) {
        this.idle.push(this.standby.shift()!);
        this.counters.standbyPromotions++;
      }
      this.startForSlots(this.options.size - this.idle.length - this.busy.size);
      this.fillStandby();
      if (this.starting.size === 0) return;
      this.startError = undefined;
      await Promise.all([...this.starting]);
      if (this.startError) throw this.startError;
    }
  }

  stats(): SandboxPoolStats {
    return {
      ...this.counters,
      queued: this.queue.length,
      busy: this.busy.size,
      idle: this.idle.length,
      standbyReady: this.standby.length,
    };
  }

  /**
   * Rejects queued runs and terminates every interpreter (runs in flight end as their interpreter
   * dies). An interpreter still starting is terminated when its start finishes, without waiting.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('SandboxPool closed'));
    const everyone = [...this.idle.splice(0), ...this.standby.splice(0), ...this.busy];
    await Promise.all([...everyone.map((interpreter) => interpreter.terminate()), ...this.terminating]);
  }

  private activeCount(): number {
    return this.idle.length + this.busy.size + this.slotStarts;
  }

  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      // The one idle longest: an interpreter puts itself back to its baseline after it answers, so
      // the one that just answered may still be busy with that (a pool of 2: the next call does not wait).
      let interpreter = this.idle.shift();
      if (!interpreter && this.activeCount() < this.options.size) {
        interpreter = this.standby.shift();
        if (interpreter) this.counters.standbyPromotions++;
      }
      if (!interpreter) break;
      this.dispatch(this.queue.shift()!, interpreter);
    }
    this.startForSlots(this.queue.length);
    this.fillStandby();
  }

  /**
   * Cold starts for `demand` waiting callers, as far as free slots allow. A standby already
   * starting will take the next free slot, so it counts against the demand.
   */
  private startForSlots(demand: number): void {
    while (
      !this.closed &&
      demand > this.slotStarts + this.standbyStartsInFlight &&
      this.activeCount() < this.options.size
    ) {
      void this.startForSlot();
    }
  }

  private dispatch(job: Job, interpreter: Interpreter): void {
    this.busy.add(interpreter);
    let broken = false;
    interpreter
      .run(job.code, job.options)
      .catch((error: unknown) => {
        broken = true;
        return diedResult(`the interpreter failed: ${String(error)}`, 0);
      })
      .then((result) => {
        this.busy.delete(interpreter);
        job.resolve(result);
        if (this.closed) return; // close() is terminating it
        const worn = interpreter.runsServed >= this.options.recycleAfterRuns;
        if (broken || interpreter.needsRecycle || worn) this.retire(interpreter);
        else this.idle.push(interpreter);
        this.pump();
      });
  }

  private retire(interpreter: Interpreter): void {
    this.counters.recycled++;
    track(this.terminating, interpreter.terminate().catch(() => undefined));
  }

  private startForSlot(): Promise<void> {
    this.slotStarts++;
    this.counters.coldStarts++;
    const started = this.startInterpreter().then(
      (interpreter) => {
        this.slotStarts--;
        this.standbyPaused = false;
        if (this.closed) return interpreter.terminate();
        this.idle.push(interpreter);
        this.pump();
      },
      (error: unknown) => {
        this.slotStarts--;
        this.startError = error;
        // A start that fails answers the oldest waiting caller, so a broken factory cannot hang the queue.
        this.queue.shift()?.reject(error);
        this.pump();
      },
    );
    track(this.starting, started);
    return started;
  }

  private async startInterpreter(): Promise<Interpreter> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.factory();
      } catch (error) {
        if (attempt >= this.options.startAttempts || this.closed) throw error;
      }
    }
  }

  private fillStandby(): void {
    if (this.slotStarts > 0 || this.standbyPaused) return; // callers' cold starts go first
    while (!this.closed && this.standby.length + this.standbyStartsInFlight < this.options.standby) {
      this.standbyStartsInFlight++;
      this.counters.standbyStarts++;
      track(
        this.starting,
        this.startInterpreter().then(
          (interpreter) => {
            this.standbyStartsInFlight--;
            if (this.closed) return interpreter.terminate();
            this.standby.push(interpreter);
            this.pump();
          },
          (error: unknown) => {
            this.standbyStartsInFlight--;
            this.standbyPaused = true;
            this.startError = error;
            this.pump(); // callers counting on this standby need a cold start now
          },
        ),
      );
    }
  }

}

function track(set: Set<Promise<unknown>>, work: Promise<unknown>): void {
  set.add(work);
  void work.finally(() => set.delete(work));
}

function definedFields<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<T>;
}
