/**
 * An Interpreter over one Python worker (browser/sandbox/python.worker.ts). It owns the clock: at the
 * timeout it writes SIGINT into the shared interrupt buffer, and if Python has not returned after a
 * short grace it terminates the worker. It needs cross-origin isolation (the shared buffer); without
 * it, or without the worker's CSP, the worker refuses to start. A terminated, crashed, fatally
 * failed or bloated worker, a malformed reply, or a run the worker could not bring back to its
 * baseline says needsRecycle; the SandboxPool replaces it.
 */
import type { Interpreter, InterpreterFactory, RunOptions, RunResult } from '../../core/sandbox/protocol';
import { diedResult, killedResult, resultFromReply } from '../../core/sandbox/runResult';
import { sharedSnapshotFactory, type MemorySnapshotRequest } from '../../core/sandbox/memorySnapshot';
import type { InitMessage, RunRequest, WorkerReply } from './workerMessages';

export interface WorkerInterpreterOptions {
  /** Time Python gets to unwind after the interrupt before the worker is terminated. */
  interruptGraceMs: number;
  /** Wasm heap cap inside the worker (the module's maximum); allocations past it raise MemoryError. */
  heapLimitBytes: number;
  /** After a run that leaves the heap above this, ask to be replaced (the heap never shrinks). */
  recycleHeapBytes: number;
  /** Bytes one run may allocate outside the heap (file contents, pipes, nodes, names: JS memory); ENOSPC past it. */
  fileBytesPerRun: number;
}

export const DEFAULT_WORKER_INTERPRETER_OPTIONS: WorkerInterpreterOptions = {
  interruptGraceMs: 300,
  heapLimitBytes: 512 * 2 ** 20,
  // Memory the heap grew past its 30 MiB snapshot is zeroed after every run: a big heap slows every run.
  recycleHeapBytes: 64 * 2 ** 20,
  fileBytesPerRun: 64 * 2 ** 20,
};

const SIGINT = 2;

/** A Python worker, not yet told anything; the one place that names its script. */
export function spawnPythonWorker(): Worker {
  return new Worker(new URL('./python.worker.ts', import.meta.url), { type: 'module', name: 'python' });
}

type ResultReply = Extract<WorkerReply, { type: 'result' }>;

export class WorkerInterpreter implements Interpreter {
  private recycle = false;
  private served = 0;
  private nextId = 0;
  private pending: ((reply: ResultReply | null) => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly interrupt: Uint8Array,
    private readonly options: WorkerInterpreterOptions,
    /** Whether Pyodide was restored from a memory snapshot rather than loaded, as the worker said at its start. */
    readonly restoredFromSnapshot: boolean,
    /** The memory snapshot made at this worker's start, or null when it was not asked to make one. */
    readonly memorySnapshot: Uint8Array | null,
  ) {
    port.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      if (data?.type === 'result' && data.id === this.nextId) this.settle(data);
    };
    worker.onerror = () => this.settle(null);
  }

  /** Spawns a worker and resolves once Pyodide (loaded, or restored from `memorySnapshot`) and the runner are in it. */
  static async spawn(options: Partial<WorkerInterpreterOptions> = {}, memorySnapshot: MemorySnapshotRequest = null): Promise<WorkerInterpreter> {
    const settings = { ...DEFAULT_WORKER_INTERPRETER_OPTIONS, ...options };
    const worker = spawnPythonWorker();
    const channel = new MessageChannel();
    // Without cross-origin isolation there is no SharedArrayBuffer: the worker is told so, and refuses.
    const shared = globalThis.crossOriginIsolated ? new SharedArrayBuffer(1) : null;
    const wantsSnapshot = memorySnapshot !== null && 'make' in memorySnapshot;
    let made: Uint8Array | null = null;
    const ready = new Promise<boolean>((resolve, reject) => {
      channel.port1.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
        if (data.type === 'memorySnapshot' && wantsSnapshot && data.bytes instanceof Uint8Array) made = data.bytes;
        else if (data.type === 'ready') resolve(data.restored === true);
        else if (data.type === 'loadFailed') reject(new Error(`Python worker failed to load: ${data.message}`));
      };
      worker.onerror = (event) => reject(new Error(`Python worker failed to start: ${event.message}`));
    });
    const init: InitMessage = {
      type: 'init',
      port: channel.port2,
      interruptBuffer: shared,
      heapLimitBytes: settings.heapLimitBytes,
      fileBytesPerRun: settings.fileBytesPerRun,
      memorySnapshot,
    };
    const transfer: Transferable[] = [channel.port2];
    if (memorySnapshot && 'load' in memorySnapshot) transfer.push(memorySnapshot.load.buffer as ArrayBuffer);
    worker.postMessage(init, transfer);
    let restored: boolean;
    try {
      restored = await ready;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return new WorkerInterpreter(worker, channel.port1, new Uint8Array(shared!), settings, restored, made);
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
    Atomics.store(this.interrupt, 0, 0);
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
      interrupted = true;
      Atomics.store(this.interrupt, 0, SIGINT);
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
    const { result, valid } = resultFromReply(settled, { interrupted, timeoutMs: options.timeoutMs, durationMs, maxOutputBytes: options.maxOutputBytes });
    // The heap never shrinks; a run the worker could not undo, or a malformed reply: start the next one clean.
    if (!valid || settled.replace !== false || !(Number(settled.heapBytes) <= this.options.recycleHeapBytes)) this.recycle = true;
    return result;
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

/**
 * An InterpreterFactory for SandboxPool whose workers share Pyodide's memory snapshot
 * (core/sandbox/memorySnapshot.ts). Each worker is sent a copy of its own: the bytes are
 * transferred, and the worker lets them go once Pyodide has started from them. e2e/sandbox.spec.ts
 * compares what programs see in restored workers with a loaded one's.
 */
export function workerInterpreterFactory(options: Partial<WorkerInterpreterOptions> = {}): InterpreterFactory {
  return sharedSnapshotFactory((request) => WorkerInterpreter.spawn(options, request && 'load' in request ? { load: request.load.slice() } : request));
}
