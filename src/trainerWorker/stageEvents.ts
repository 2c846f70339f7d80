/**
 * A step's stages as the worker's 'stage' events (the page's loop diagram), few enough to cost
 * nothing: the trainer reports its stage at every token step, and this sends only the changes, at
 * most one per STAGE_EVENT_MS.
 */
import type { StepStageName } from '../core/rl/stepStages';

/**
 * The least time between two 'stage' events of a step. While the batch writes, its answers' code
 * starts and ends many times a second; the page hears the stage at most this often, a few messages a
 * second, and a stage over in a moment (the reward) stays lit long enough to be seen.
 */
export const STAGE_EVENT_MS = 300;

/**
 * A step's stages as 'stage' events: a new stage goes out at once unless one went out less than
 * STAGE_EVENT_MS ago, and then the newest goes out when that time is up.
 */
export class StageEvents {
  private sent: StepStageName | null = null;
  private sentAt = -Infinity;
  private latest: StepStageName | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly send: (stage: StepStageName) => void) {}

  /** The trainer's listener: called at every token step, so it does nothing more than it must. */
  readonly report = (stage: StepStageName): void => {
    this.latest = stage;
    if (this.timer !== null || stage === this.sent) return;
    const wait = this.sentAt + STAGE_EVENT_MS - performance.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  };

  /** Sends the newest stage now, unless it is the one last sent. */
  flush(): void {
    this.cancelTimer();
    if (this.latest === null || this.latest === this.sent) return;
    this.sent = this.latest;
    this.sentAt = performance.now();
    this.send(this.latest);
  }

  /** The step is over without a record: nothing more goes out. */
  stop(): void {
    this.cancelTimer();
    this.latest = this.sent;
  }

  private cancelTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
