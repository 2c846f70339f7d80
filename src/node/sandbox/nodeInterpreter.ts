/**
 * One Python interpreter for Node: Pyodide in a child process under Node's permission model.
 *
 * The boundary is the child process: it may read only Pyodide's files and its own two scripts, may
 * not write, spawn processes or load addons, gets an empty environment, cannot compile JavaScript
 * from strings, and its network is switched off before Pyodide loads (pyodideThread.mjs). The
 * timeout is an interrupt from the child's main thread at `timeoutMs`, then SIGKILL from here after
 * `killGraceMs`; a killed or broken interpreter says needsRecycle and the pool replaces it. Every
 * run starts from the same baseline (interpreterIsolation.mjs); a run that the child could not
 * bring back to it, a malformed reply, or memory over its threshold also means a recycle.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Interpreter, InterpreterFactory, RunOptions, RunResult } from '../../core/sandbox/protocol';
import type { IsolatedReply } from '../../core/sandbox/interpreterIsolation.mjs';
import { PYTHON_RUNNER_SOURCE } from '../../core/sandbox/pythonRunner';
import { diedResult, invalidResult, killedResult, memoryCapResult, resultFromReply } from '../../core/sandbox/runResult';
import { sharedSnapshotFactory, type MemorySnapshotRequest } from '../../core/sandbox/memorySnapshot';

export interface NodeInterpreterOptions {
  /** Directory of the pyodide npm package (default: resolved from node_modules). */
  pyodideDir?: string;
  /** Wasm heap cap inside the child (the module's maximum); allocations past it raise MemoryError. */
  heapLimitBytes?: number;
  /** After a run that leaves the heap above this, the interpreter asks to be recycled. */
  recycleHeapBytes?: number;
  /** The child's resident memory cap, for all of its memory: past it during a run, it is killed. */
  rssLimitBytes?: number;
  /**
   * After a run that leaves the child's resident memory above this, it is recycled. Default: low
   * enough that a program using all of the heap cap and the run's file budget still fits under
   * rssLimitBytes, whatever the run before it left behind.
   */
  recycleRssBytes?: number;
  /** Bytes one run may allocate outside the heap (file contents, pipes, nodes, names: JS memory); ENOSPC past it. */
  fileBytesPerRun?: number;
  /** How long after the interrupt (sent at the timeout) the child is killed. */
  killGraceMs?: number;
  /** Cold-start limit. */
  startTimeoutMs?: number;
}

const DEFAULTS: Required<Omit<NodeInterpreterOptions, 'pyodideDir' | 'recycleRssBytes'>> = {
  heapLimitBytes: 512 * 2 ** 20,
  // Memory the heap grew past its 30 MiB snapshot is zeroed after every run: a big heap slows every run.
  recycleHeapBytes: 64 * 2 ** 20,
  rssLimitBytes: 1536 * 2 ** 20,
  fileBytesPerRun: 64 * 2 ** 20,
  killGraceMs: 500,
  // A cold start takes seconds alone, but passed 30 s three times in a row at a load average of 13
  // here and failed training runs: a start that never comes is still caught, later.
  startTimeoutMs: 120_000,
};

const CHILD_DIR = dirname(fileURLToPath(import.meta.url));
const CHILD_SCRIPTS = ['child.mjs', 'pyodideThread.mjs'].map((name) => join(CHILD_DIR, name));
/** The child's own scripts and the isolation module they import: all it may read besides Pyodide. */
const CHILD_FILES = [...CHILD_SCRIPTS, fileURLToPath(new URL('../../core/sandbox/interpreterIsolation.mjs', import.meta.url))];
const STDERR_TAIL_CHARS = 2000;
/**
 * The child's descriptor for a memory snapshot's bytes, written raw: over the IPC channel they were
 * serialized here on the trainer's thread and parsed there into several fresh 30 MiB copies. The
 * init message names it, so the child holds no copy of this number.
 */
const SNAPSHOT_FD = 4;
/**
 * What a run may add to the child's memory beyond its heap and file budget (its output, the reply,
 * garbage not yet collected). An idle child holds about 225 MiB here.
 */
const RSS_HEADROOM_BYTES = 128 * 2 ** 20;

type Settings = Required<Omit<NodeInterpreterOptions, 'pyodideDir'>>;

/** A snapshot request as the child gets it: a snapshot to load comes as its byteLength bytes on SNAPSHOT_FD. */
type ChildSnapshotRequest = { make: true } | { byteLength: number } | null;

function childSnapshotRequest(request: MemorySnapshotRequest): ChildSnapshotRequest {
  return request !== null && 'load' in request ? { byteLength: request.load.byteLength } : request;
}

/** What the child sends. A result is checked field by field in onMessage: the child is not trusted. */
type ChildMessage =
  | { type: 'ready'; restored?: unknown }
  | { type: 'memorySnapshot'; bytes: Uint8Array }
  | { type: 'failed'; message: string }
  | ({ type: 'result'; id: number; interrupted: boolean; overMemory?: boolean; rssBytes: number } & Partial<IsolatedReply>);

interface PendingRun {
  id: number;
  timeoutMs: number;
  maxOutputBytes: number;
  startedAt: number;
  killTimer: NodeJS.Timeout;
  resolve: (result: RunResult) => void;
}

export function defaultPyodideDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('pyodide/package.json'));
}

/** The node command line of a sandbox child: the permission model is the boundary. */
export function childNodeArgs(pyodideDir: string): string[] {
  return [
    '--experimental-permission',
    `--allow-fs-read=${join(realpathSync(pyodideDir), '*')}`,
    ...CHILD_FILES.map((file) => `--allow-fs-read=${file}`),
    '--allow-worker', // Pyodide's thread inside the child; the model still covers it
    '--disallow-code-generation-from-strings', // no eval/Function: Python cannot run new JS
    '--expose-gc', // the child lets the memory snapshot's copies go before its memory is first read
    '--no-warnings',
    CHILD_SCRIPTS[0],
  ];
}

export class NodeInterpreter implements Interpreter {
  private recycle = false;
  private served = 0;
  private nextId = 0;
  private pending: PendingRun | null = null;
  private exited = false;
  /** The child's last words, for a failed start; never put into a RunResult (host paths). */
  private stderrTail = '';
  /** The memory snapshot this interpreter made at its start, when asked to. */
  private snapshotMade: Uint8Array | null = null;
  /** Whether Pyodide was restored from a memory snapshot rather than loaded, as the child said at its start. */
  private restored = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: Settings,
  ) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.on('message', (message: ChildMessage) => this.onMessage(message));
    child.on('exit', (code, signal) => this.onExit(code, signal));
    // A failed spawn or a send to a dead child: the exit (or the start's failure) reports it.
    child.on('error', (error) => {
      this.stderrTail = `${this.stderrTail}\n${String(error)}`.slice(-STDERR_TAIL_CHARS);
    });
  }

  /** Spawns the child and resolves once Pyodide is loaded (or restored from `memorySnapshot`) and the runner is in place. */
  static async start(options: NodeInterpreterOptions = {}, memorySnapshot: MemorySnapshotRequest = null): Promise<NodeInterpreter> {
    const caps = { ...DEFAULTS, ...options };
    const settings: Settings = {
      ...caps,
      // Memory parked just under a higher line made an innocent program within every cap pass the kill line.
      recycleRssBytes: options.recycleRssBytes ?? caps.rssLimitBytes - caps.heapLimitBytes - caps.fileBytesPerRun - RSS_HEADROOM_BYTES,
    };
    const pyodideDir = options.pyodideDir ?? defaultPyodideDir();
    const child = spawn(process.execPath, childNodeArgs(pyodideDir), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe'],
      serialization: 'advanced', // the snapshot made by the first child comes back as bytes, not as 40 MB of JSON
      env: {}, // nothing of the host's environment is readable inside
    });
    const interpreter = new NodeInterpreter(child, settings);
    const load = memorySnapshot !== null && 'load' in memorySnapshot ? memorySnapshot.load : null;
    const snapshotPipe = child.stdio[SNAPSHOT_FD] as Writable;
    snapshotPipe.on('error', () => {}); // a child that dies before it has read them: its exit fails the start
    snapshotPipe.end(load ?? undefined);
    await interpreter.handshake({
      type: 'init',
      indexURL: `${realpathSync(pyodideDir)}/`,
      runnerSource: PYTHON_RUNNER_SOURCE,
      heapLimitBytes: settings.heapLimitBytes,
      fileBytesPerRun: settings.fileBytesPerRun,
      rssLimitBytes: settings.rssLimitBytes,
      snapshotFd: SNAPSHOT_FD,
      memorySnapshot: childSnapshotRequest(memorySnapshot),
    });
    return interpreter;
  }

  /** Whether Pyodide started from the factory's memory snapshot (the child said so before any program ran). */
  get restoredFromSnapshot(): boolean {
    return this.restored;
  }

  /** The memory snapshot made at this interpreter's start, or null when it was not asked to make one. */
  get memorySnapshot(): Uint8Array | null {
    return this.snapshotMade;
  }

  /** The child's process id, for measurements (scripts/sandboxRestartCost.ts). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get needsRecycle(): boolean {
    return this.recycle;
  }

  get runsServed(): number {
    return this.served;
  }

  run(code: string, options: RunOptions): Promise<RunResult> {
    if (this.pending) return Promise.reject(new Error('NodeInterpreter runs one call at a time'));
    if (this.exited) return Promise.resolve(diedResult('the interpreter process has exited', 0));
    return new Promise((resolve) => {
      const id = ++this.nextId;
      const killTimer = setTimeout(() => this.child.kill('SIGKILL'), options.timeoutMs + this.options.killGraceMs);
      this.pending = { id, timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes, startedAt: performance.now(), killTimer, resolve };
      this.child.send({ type: 'run', id, code, timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes });
    });
  }

  async terminate(): Promise<void> {
    this.recycle = true;
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await exited;
  }

  private handshake(init: { type: 'init'; memorySnapshot: ChildSnapshotRequest } & Record<string, unknown>): Promise<void> {
    const wantsSnapshot = init.memorySnapshot !== null && 'make' in init.memorySnapshot;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(`no ready message within ${this.options.startTimeoutMs} ms`), this.options.startTimeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.kill('SIGKILL');
        reject(new Error(`sandbox interpreter failed to start: ${why}${this.stderrTail ? `\n${this.stderrTail}` : ''}`));
      };
      const onMessage = (message: ChildMessage) => {
        // Made before any program ran in the child, so it can be trusted as a start for the others.
        if (message.type === 'memorySnapshot' && wantsSnapshot && message.bytes instanceof Uint8Array) this.snapshotMade = message.bytes;
        else if (message.type === 'ready') {
          this.restored = message.restored === true;
          clearTimeout(timer);
          this.child.off('message', onMessage);
          this.child.off('exit', onExit);
          resolve();
        } else if (message.type === 'failed') fail(message.message);
      };
      const onExit = () => fail('the child process exited');
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.once('error', (error) => fail(String(error)));
      this.child.send(init);
    });
  }

  private onMessage(message: ChildMessage): void {
    try {
      this.handleMessage(message);
    } catch (error) {
      // Whatever the child sent, the host carries on: that run fails and the child is replaced.
      this.recycle = true;
      this.finish((durationMs) => invalidResult(`the interpreter's message could not be read (${String(error).slice(0, 200)})`, durationMs));
    }
  }

  private handleMessage(message: ChildMessage): void {
    const run = this.pending;
    if (message?.type === 'failed') this.stderrTail = `${this.stderrTail}\n${String(message.message)}`.slice(-STDERR_TAIL_CHARS);
    if (message?.type !== 'result' || !run || message.id !== run.id) return;
    this.finish((durationMs) => {
      this.served++;
      if (message.overMemory) {
        this.recycle = true;
        return memoryCapResult(this.options.rssLimitBytes, durationMs);
      }
      const { result, valid } = resultFromReply(message, {
        interrupted: message.interrupted === true,
        timeoutMs: run.timeoutMs,
        durationMs,
        maxOutputBytes: run.maxOutputBytes,
      });
      const heapBytes = Number(message.heapBytes);
      const rssBytes = Number(message.rssBytes);
      if (!valid || message.replace !== false || !(heapBytes <= this.options.recycleHeapBytes) || !(rssBytes <= this.options.recycleRssBytes)) {
        this.recycle = true;
      }
      return result;
    });
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    this.recycle = true;
    const run = this.pending;
    if (!run) return;
    const overtime = performance.now() - run.startedAt >= run.timeoutMs;
    this.finish((durationMs) =>
      signal === 'SIGKILL' && overtime
        ? killedResult(run.timeoutMs, durationMs)
        : diedResult(`the interpreter process exited (${signal ?? `code ${code}`})`, durationMs),
    );
  }

  private finish(build: (durationMs: number) => RunResult): void {
    const run = this.pending;
    if (!run) return;
    this.pending = null;
    clearTimeout(run.killTimer);
    run.resolve(build(performance.now() - run.startedAt));
  }
}

/**
 * An InterpreterFactory for SandboxPool whose interpreters share Pyodide's memory snapshot
 * (core/sandbox/memorySnapshot.ts; the bytes cross the IPC channel as a copy). The isolation corpus
 * compares the programs' view of a restored interpreter with a loaded one (test/sandboxIsolation.test.ts).
 */
export function nodeInterpreterFactory(options: NodeInterpreterOptions = {}): InterpreterFactory {
  return sharedSnapshotFactory((request) => NodeInterpreter.start(options, request));
}
