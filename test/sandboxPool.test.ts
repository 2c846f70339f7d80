import { describe, expect, it } from 'vitest';
import { SandboxPool } from '../src/core/sandbox/pool';
import type { Interpreter, RunOptions, RunResult } from '../src/core/sandbox/protocol';

/** A promise with its resolve/reject exposed. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

interface Call {
  code: string;
  options: RunOptions;
  finish: () => void;
}

/**
 * A fake interpreter whose runs end only when the test says so. Code 'recycle' makes it ask to be
 * recycled, 'reject' makes run() reject.
 */
class FakeInterpreter implements Interpreter {
  needsRecycle = false;
  runsServed = 0;
  terminated = false;
  readonly calls: Call[] = [];

  constructor(
    readonly name: string,
    private readonly log: { running: number; maxRunning: number; order: string[] },
    private readonly autoFinish: boolean,
  ) {}

  run(code: string, options: RunOptions): Promise<RunResult> {
    const done = deferred<void>();
    this.calls.push({ code, options, finish: () => done.resolve() });
    this.log.running++;
    this.log.maxRunning = Math.max(this.log.maxRunning, this.log.running);
    this.log.order.push(code);
    if (this.autoFinish) done.resolve();
    return done.promise.then(() => {
      this.log.running--;
      this.runsServed++;
      if (code === 'reject') throw new Error('fake failure');
      if (code === 'recycle') this.needsRecycle = true;
      return { ok: true, stdout: `${this.name}:${code}`, stderr: '', timedOut: false, truncated: false, durationMs: 1 };
    });
  }

  async terminate(): Promise<void> {
    this.terminated = true;
  }
}

/** A factory whose starts resolve at once (auto) or when the test releases them. */
function fakeFactory({ autoStart = true, autoFinish = true } = {}) {
  const log = { running: 0, maxRunning: 0, order: [] as string[] };
  const made: FakeInterpreter[] = [];
  const starts: { release: () => void; fail: (error: unknown) => void }[] = [];
  let startsAllowed = autoStart ? Infinity : 0;
  const factory = () => {
    const interpreter = new FakeInterpreter(`i${starts.length}`, log, autoFinish);
    const start = deferred<Interpreter>();
    starts.push({
      release: () => {
        made.push(interpreter);
        start.resolve(interpreter);
      },
      fail: (error) => start.reject(error),
    });
    if (startsAllowed > 0) {
      startsAllowed--;
      starts.at(-1)!.release();
    }
    return start.promise;
  };
  return {
    factory,
    log,
    made,
    starts,
    /** From now on only `n` more starts resolve by themselves; later ones hang until released. */
    allowStarts(n: number) {
      startsAllowed = n;
    },
  };
}

describe('SandboxPool', () => {
  it('runs at most N calls at once and completes the rest from the queue', async () => {
    const fake = fakeFactory({ autoFinish: false });
    const pool = new SandboxPool(fake.factory, { size: 2, standby: 0 });
    const results = ['a', 'b', 'c', 'd', 'e'].map((code) => pool.run(code));
    await settle();
    expect(fake.made).toHaveLength(2);
    expect(fake.log.running).toBe(2);
    expect(pool.stats().queued).toBe(3);
    for (let round = 0; round < 3; round++) {
      for (const interpreter of fake.made) interpreter.calls.forEach((call) => call.finish());
      await settle();
    }
    expect((await Promise.all(results)).map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(fake.log.maxRunning).toBe(2);
    expect(fake.made).toHaveLength(2); // no interpreter beyond N was started
    await pool.close();
  });

  it('serves queued calls in FIFO order', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    const codes = ['first', 'second', 'third', 'fourth', 'fifth'];
    const results = await Promise.all(codes.map((code) => pool.run(code)));
    expect(fake.log.order).toEqual(codes);
    expect(results.map((r) => r.stdout)).toEqual(codes.map((code) => `i0:${code}`));
    await pool.close();
  });

  it('fills in the default run options a caller leaves out', async () => {
    const fake = fakeFactory();
    const runOptions = { timeoutMs: 1234, maxOutputBytes: 99 };
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0, runOptions });
    await pool.run('a');
    await pool.run('b', { timeoutMs: 50 });
    await pool.run('c', { maxOutputBytes: undefined, timeoutMs: 7 });
    expect(fake.made[0]!.calls.map((call) => call.options)).toEqual([
      { timeoutMs: 1234, maxOutputBytes: 99 },
      { timeoutMs: 50, maxOutputBytes: 99 },
      { timeoutMs: 7, maxOutputBytes: 99 },
    ]);
    await pool.close();
  });

  it('refuses run options outside their bounds, before anything runs (a 3e9 ms timer fires at once)', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    for (const options of [{ timeoutMs: 3_000_000_000 }, { timeoutMs: 0 }, { timeoutMs: 1.5 }, { timeoutMs: Number.NaN }, { maxOutputBytes: -1 }, { maxOutputBytes: 2 ** 30 }]) {
      await expect(pool.run('a', options)).rejects.toThrow(/^SandboxPool: (timeoutMs|maxOutputBytes) must be an integer from/);
    }
    await pool.run('b', { timeoutMs: 3_600_000, maxOutputBytes: 0 });
    expect(fake.log.order).toEqual(['b']);
    await pool.close();
  });

  it('gives the next call to the interpreter idle longest, which has had the most time to reset', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 2, standby: 0 });
    await pool.warmUp();
    const served = [];
    for (const code of ['a', 'b', 'c', 'd']) served.push((await pool.run(code)).stdout);
    expect(served).toEqual(['i0:a', 'i1:b', 'i0:c', 'i1:d']);
    await pool.close();
  });

  it('replaces a recycled interpreter from the standby without a cold start on the caller path', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 1 });
    await pool.warmUp(); // i0 in the slot, i1 on standby
    expect(fake.made.map((i) => i.name)).toEqual(['i0', 'i1']);
    fake.allowStarts(0); // every later start hangs: a caller waiting on one would never finish

    expect((await pool.run('recycle')).stdout).toBe('i0:recycle');
    expect(fake.made[0]!.terminated).toBe(true);
    expect((await pool.run('next')).stdout).toBe('i1:next');
    expect(pool.stats()).toMatchObject({ coldStarts: 1, standbyStarts: 2, standbyPromotions: 1, recycled: 1 });
    expect(fake.starts).toHaveLength(3); // the refill of the standby, still starting
    await pool.close();
  });

  it('makes the caller wait for a cold start when there is no standby', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    await pool.run('recycle');
    fake.allowStarts(0);
    let done = false;
    const next = pool.run('next').then((result) => {
      done = true;
      return result;
    });
    await settle();
    expect(done).toBe(false);
    fake.starts[1]!.release();
    expect((await next).stdout).toBe('i1:next');
    expect(pool.stats()).toMatchObject({ coldStarts: 2, standbyPromotions: 0, recycled: 1 });
    await pool.close();
  });

  it('waits for a standby that is already starting rather than starting another interpreter', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 1 });
    await pool.warmUp(); // i0 in the slot, i1 on standby
    fake.allowStarts(0);
    await pool.run('recycle'); // i0 retired
    await pool.run('recycle'); // i1 promoted, then retired; i2 (standby refill) is still starting
    const next = pool.run('next');
    await settle();
    expect(fake.starts).toHaveLength(3);
    fake.starts[2]!.release();
    expect((await next).stdout).toBe('i2:next');
    await pool.close();
  });

  it('recycles every K runs', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0, recycleAfterRuns: 3 });
    const served: string[] = [];
    for (let i = 0; i < 7; i++) served.push((await pool.run(`r${i}`)).stdout.split(':')[0]!);
    expect(served).toEqual(['i0', 'i0', 'i0', 'i1', 'i1', 'i1', 'i2']);
    expect(fake.made.slice(0, 2).every((i) => i.terminated)).toBe(true);
    expect(fake.made[2]!.terminated).toBe(false);
    expect(pool.stats().recycled).toBe(2);
    await pool.close();
  });

  it('answers a rejecting run with InterpreterDied and retires that interpreter', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    const result = await pool.run('reject');
    expect(result.ok).toBe(false);
    expect(result.error?.type).toBe('InterpreterDied');
    expect(result.error?.message).toContain('fake failure');
    expect(fake.made[0]!.terminated).toBe(true);
    expect((await pool.run('after')).stdout).toBe('i1:after');
    await pool.close();
  });

  it('retries a failed start, so a caller waits through two failures and runs on the third try', async () => {
    const fake = fakeFactory({ autoStart: false });
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    const call = pool.run('a');
    await settle();
    fake.starts[0]!.fail(new Error('timed out'));
    await settle();
    fake.starts[1]!.fail(new Error('timed out'));
    await settle();
    fake.starts[2]!.release();
    expect((await call).stdout).toBe('i2:a');
    expect(pool.stats().coldStarts).toBe(1);
    await pool.close();
  });

  it('rejects the waiting caller when every try of a start fails, and recovers when starts work again', async () => {
    const fake = fakeFactory({ autoStart: false });
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0, startAttempts: 2 });
    const first = pool.run('a');
    await settle();
    fake.starts[0]!.fail(new Error('no pyodide'));
    await settle();
    fake.starts[1]!.fail(new Error('no pyodide'));
    await expect(first).rejects.toThrow('no pyodide');
    expect(fake.starts).toHaveLength(2);
    fake.allowStarts(Infinity);
    expect((await pool.run('b')).ok).toBe(true);
    await pool.close();
  });

  it('close() rejects queued calls, ends calls in flight and terminates every interpreter', async () => {
    const fake = fakeFactory({ autoFinish: false });
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 1 });
    const running = pool.run('running');
    const queued = pool.run('queued');
    await settle();
    expect(fake.made.map((i) => i.name)).toEqual(['i0', 'i1']); // slot and standby
    const closing = pool.close();
    await expect(queued).rejects.toThrow('closed');
    fake.made[0]!.calls[0]!.finish(); // a real interpreter ends its run when terminated
    await closing;
    expect((await running).ok).toBe(true);
    expect(fake.made.every((i) => i.terminated)).toBe(true);
    await expect(pool.run('late')).rejects.toThrow('closed');
  });

  it('terminates an interpreter whose start finishes after close()', async () => {
    const fake = fakeFactory({ autoStart: false });
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 0 });
    const call = pool.run('a');
    await settle();
    const closing = pool.close();
    await expect(call).rejects.toThrow('closed');
    await closing;
    fake.starts[0]!.release();
    await settle();
    expect(fake.made[0]!.terminated).toBe(true);
    expect(fake.made[0]!.calls).toHaveLength(0);
  });

  it('warmUp() fills an emptied slot from the standby, then refills the standby', async () => {
    const fake = fakeFactory();
    const pool = new SandboxPool(fake.factory, { size: 1, standby: 1 });
    await pool.warmUp();
    await pool.run('recycle'); // the slot is empty now, i1 waits on standby
    await pool.warmUp();
    expect(pool.stats()).toMatchObject({ coldStarts: 1, standbyStarts: 2, standbyPromotions: 1, idle: 1, standbyReady: 1 });
    expect((await pool.run('next')).stdout).toBe('i1:next');
    await pool.close();
  });

  it('warmUp() rejects when interpreters cannot start', async () => {
    const fake = fakeFactory({ autoStart: false });
    const pool = new SandboxPool(fake.factory, { size: 2, standby: 0, startAttempts: 1 });
    const warming = pool.warmUp();
    await settle();
    fake.starts[0]!.fail(new Error('no pyodide'));
    fake.starts[1]!.release();
    await expect(warming).rejects.toThrow('no pyodide');
    await pool.close();
  });

  it('refuses a size below 1', () => {
    expect(() => new SandboxPool(fakeFactory().factory, { size: 0 })).toThrow('at least 1');
  });
});
