/** Types of interpreterIsolation.mjs (plain JavaScript, so that the Node child can load it). */
import type { MemorySnapshotRequest } from './memorySnapshot';

export function capWasmMemory(binary: ArrayBuffer | Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer>;

/** loadPyodide's options for a memory snapshot request. */
export function snapshotLoadOptions(memorySnapshot: MemorySnapshotRequest): { _loadSnapshot?: Uint8Array; _makeSnapshot?: boolean };

/**
 * Right after loadPyodide, before any program runs: puts sys.path as a load leaves it. A restore's
 * bytes come back as `spare` (taken from Pyodide), for IsolatedRunner's baseline; asked to make a
 * snapshot, makes it and returns its bytes as `made`.
 */
export function settleSnapshotStart(
  pyodide: { runPython(code: string): unknown; makeMemorySnapshot(): Uint8Array },
  memorySnapshot: MemorySnapshotRequest,
): { made: Uint8Array | null; spare: ArrayBuffer | null };

/** A copy of the heap, written into `spare` when it is large enough (then `spare` is the copy's buffer), else into new memory. */
export function heapCopy(heap: Uint8Array, spare: ArrayBuffer | null): Uint8Array;

/** A run of the baseline's blocks, all zeros or not. */
export interface BaselineRun {
  start: number;
  end: number;
  zero: boolean;
}

/**
 * The baseline as runs of whole blocks (16 KiB unless `blockBytes` is given), each all zeros or not;
 * restoreBaseline fills the zero runs (a write only) and copies the rest.
 */
export function baselineRuns(baseline: Uint8Array, blockBytes?: number): BaselineRun[];

/** Writes `baseline` back over `heap` by its runs; memory past the baseline is zeroed. */
export function restoreBaseline(heap: Uint8Array, baseline: Uint8Array, runs: readonly BaselineRun[]): void;

/** Bytes of `text` in UTF-8. */
export function utf8Length(text: string): number;

/**
 * stdout and stderr of one run in one budget of UTF-8 bytes of the decoded text; the write that
 * passes it calls onFull and nothing is kept after it.
 */
export class OutputCapture {
  constructor(maxBytes: number, onFull: () => void);
  readonly truncated: boolean;
  /** Returns how many bytes it took: all of them, kept or dropped. */
  write(stream: 'stdout' | 'stderr', buffer: Uint8Array): number;
  /** The decoded text, once the run is over. */
  finish(): { stdout: string; stderr: string };
}

/** An object whose [0] reads and clears `buffer` in one atomic step: give it to Pyodide's setInterruptBuffer. */
export function consumingSignalView(buffer: Int32Array | Uint8Array): { readonly 0: number };

export interface InstantiationHook {
  /** Calls per counted import since IsolatedRunner last cleared it. */
  counts: Map<string, number>;
  /** Whether Pyodide's module was instantiated through the hook. */
  used: boolean;
  /** Puts WebAssembly.instantiate(Streaming) back, if the hook was not used. */
  release(): void;
}

export function hookPyodideInstantiation(options: { heapLimitBytes: number }): InstantiationHook;

/** What one run answers; every field is checked again by the host (runResult.ts). */
export interface IsolatedReply {
  /** The runner's JSON; absent when the call failed or its answer was not text. */
  output?: string;
  /** A fatal failure of the interpreter. */
  failure?: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The interpreter could not be brought back to its baseline: do not reuse it. */
  replace: boolean;
  reason: string | null;
  heapBytes: number;
}

export interface IsolatedRunnerOptions {
  runnerSource: string;
  /** Pyodide's interrupt buffer; the output cap writes SIGINT into it. */
  interruptBuffer: Int32Array | Uint8Array | null;
  /**
   * Bytes one run may allocate outside the wasm heap without reaching JavaScript: file contents,
   * pipe buffers, new nodes with their names and symlink targets (all JS memory). ENOSPC past it.
   */
  fileBytesPerRun: number;
  /** Memory the baseline's copy of the heap is written into when it is large enough (settleSnapshotStart's `spare`); else a new copy. */
  spare?: ArrayBuffer | null;
}

export class IsolatedRunner {
  static start(pyodide: unknown, hook: InstantiationHook, options: IsolatedRunnerOptions): IsolatedRunner;
  run(code: string, maxOutputBytes: number): IsolatedReply;
  /** After run()'s reply is sent: restore the baseline (skipped when the reply said replace). */
  reset(): void;
}
