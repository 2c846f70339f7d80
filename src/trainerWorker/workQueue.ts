/**
 * Runs async jobs one at a time, in call order. The lab worker answers messages while a training
 * step awaits the sandbox, so a checkpoint, an evaluation or a reset asked for mid-step waits for
 * the step to finish instead of reading half-updated weights.
 */
export class WorkQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job);
    // A failed job must not stop the jobs queued after it; its caller still sees the rejection.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
