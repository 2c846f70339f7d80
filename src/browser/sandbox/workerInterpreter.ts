/**
 * An Interpreter over one Python worker (workers/python.worker.ts). It owns the clock: at the
 * timeout it writes SIGINT into the shared interrupt buffer, and if Python has not returned after a
 * short grace it terminates the worker. Without cross-origin isolation there is no shared buffer,
 * so a timeout terminates at once. A terminated, crashed, fatally failed or bloated worker says
 * needsRecycle; the SandboxPool replaces it.
 */
import type { Interpreter, InterpreterFactory, RunOptions, RunResult } from '../../core/sandbox/protocol';
import type { RunnerOutput } from '../../core/sandbox/pythonRunner';
import { diedResult, killedResult, resultFromRunner } from '../../core/sandbox/runResult';
import type { InitMessage, RunRequest, WorkerReply } from './workerMessages';

export interface WorkerInterpreterOptions {
  /** Time Python gets to unwind after the interrupt before the worker is terminated. */
  interruptGraceMs: number;
  /** Wasm heap cap inside the worker; allocations past it raise MemoryError. */
  heapLimitBytes: number;
  /** After a run that leaves the heap above this, ask to be replaced (the heap never shrinks). */
  recycleHeapBytes: number;
  /** Use the interrupt buffer when the page is crossOriginIsolated; false: every timeout terminates. */
  useInterrupt: boolean;
}

export const DEFAULT_WORKER_INTERPRETER_OPTIONS: WorkerInterpreterOptions = {
  interruptGraceMs: 300,
  heapLimitBytes: 512 * 2 ** 20,
  recycleHeapBytes: 256 * 2 ** 20,
  useInterrupt: true,
};

const SIGINT = 2;
const NO_OUTPUT: RunnerOutput = { ok: false, stdout: '', stderr: '', truncated: false, error: null, guardBypassed: false };

type ResultReply = Extract<WorkerReply, { type: 'result' }>;

export class WorkerInterpreter implements Interpreter {
  private recycle = false;
  private served = 0;
  private nextId = 0;
  private pending: ((reply: ResultReply | null) => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly interrupt: Uint8Array | null,
    private readonly options: WorkerInterpreterOptions,
  ) {
    port.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      if (data.type === 'result' && data.id === this.nextId) this.settle(data);
    };
    worker.onerror = () => this.settle(null);
  }

  /** Spawns a worker and resolves once Pyodide and the runner are loaded in it. */
  static async spawn(options: Partial<WorkerInterpreterOptions> = {}): Promise<WorkerInterpreter> {
    const settings = { ...DEFAULT_WORKER_INTERPRETER_OPTIONS, ...options };
    const worker = new Worker(new URL('../../../workers/python.worker.ts', import.meta.url), {
      type: 'module',
      name: 'python',
    });
    const channel = new MessageChannel();
    const shared = settings.useInterrupt && globalThis.crossOriginIsolated ? new SharedArrayBuffer(1) : null;
    const ready = new Promise<void>((resolve, reject) => {
      channel.port1.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
        if (data.type === 'ready') resolve();
        else if (data.type === 'loadFailed') reject(new Error(`Python worker failed to load: ${data.message}`));
      };
      worker.onerror = (event) => reject(new Error(`Python worker failed to start: ${event.message}`));
    });
    const init: InitMessage = {
      type: 'init',
      port: channel.port2,
      interruptBuffer: shared,
      heapLimitBytes: settings.heapLimitBytes,
    };
    worker.postMessage(init, [channel.port2]);
    try {
      await ready;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return new WorkerInterpreter(worker, channel.port1, shared && new Uint8Array(shared), settings);
  }

  get needsRecycle(): boolean {
    return this.recycle;
  }

  get runsServed(): number {
    return this.served;
  }

  async run(code: string, options: RunOptions): Promise<RunResult> {
    if (this.pending) throw new Error('WorkerInterpreter runs one call at a time');
    if (this.recycle) return diedResult('the Python worker was terminated', 0);
    const startedAt = performance.now();
    const id = ++this.nextId;
    if (this.interrupt) this.interrupt[0] = 0;
    const reply = new Promise<ResultReply | null>((resolve) => (this.pending = resolve));
    const request: RunRequest = { type: 'run', id, code, maxOutputBytes: options.maxOutputBytes };
    this.port.postMessage(request);

    let interrupted = false;
    let killed = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const kill = () => {
      killed = true;
      this.terminateNow();
    };
    const timeoutTimer = setTimeout(() => {
      if (!this.interrupt) return kill();
      interrupted = true;
      this.interrupt[0] = SIGINT;
      graceTimer = setTimeout(kill, this.options.interruptGraceMs);
    }, options.timeoutMs);

    const settled = await reply;
    clearTimeout(timeoutTimer);
    clearTimeout(graceTimer);
    this.served += 1;
    const durationMs = performance.now() - startedAt;
    if (killed) return killedResult(options.timeoutMs, durationMs);
    if (!settled) {
      this.terminateNow();
      return diedResult('the Python worker crashed; it will be replaced', durationMs);
    }
    if (settled.heapBytes > this.options.recycleHeapBytes) this.recycle = true;
    if (settled.output === undefined) {
      this.terminateNow();
      // SIGINT landing in the runner's own reset breaks the runner: still a timeout, and a recycle.
      if (interrupted) return resultFromRunner(NO_OUTPUT, { interrupted, timeoutMs: options.timeoutMs, durationMs });
      return diedResult(`a fatal error in the interpreter; it will be replaced. ${settled.failure ?? ''}`, durationMs);
    }
    const output = JSON.parse(settled.output) as RunnerOutput;
    // Past the guard, the run may have reached Pyodide's JavaScript side: start the next one clean.
    if (output.guardBypassed) this.recycle = true;
    return resultFromRunner(output, { interrupted, timeoutMs: options.timeoutMs, durationMs });
  }

  async terminate(): Promise<void> {
    this.terminateNow();
  }

  private settle(reply: ResultReply | null): void {
    const resolve = this.pending;
    this.pending = null;
    resolve?.(reply);
  }

  private terminateNow(): void {
    this.recycle = true;
    this.worker.terminate();
    this.port.close();
    this.settle(null);
  }
}

/** An InterpreterFactory for SandboxPool. */
export function workerInterpreterFactory(options: Partial<WorkerInterpreterOptions> = {}): InterpreterFactory {
  return () => WorkerInterpreter.spawn(options);
}
