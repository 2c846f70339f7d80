/**
 * Messages between a WorkerInterpreter (page side) and browser/sandbox/python.worker.ts. After `init`, all
 * traffic goes over a private MessagePort, so Python code that reaches the worker's own
 * postMessage/onmessage cannot forge results or read the next run's request. A `probe` instead of
 * `init` only asks how the worker is served (hostingProbe.ts).
 */
import type { IsolatedReply } from '../../core/sandbox/interpreterIsolation.mjs';
import type { MemorySnapshotRequest } from '../../core/sandbox/memorySnapshot';

export interface InitMessage {
  type: 'init';
  port: MessagePort;
  /** One byte the page sets to 2 (SIGINT) to interrupt; without it (no cross-origin isolation) the worker refuses to run. */
  interruptBuffer: SharedArrayBuffer | null;
  /** Cap on the WebAssembly heap, written into the module: growth past it fails, Python raises MemoryError. */
  heapLimitBytes: number;
  /** Bytes one run may allocate outside the heap (file contents, pipes, nodes, names: JS memory); ENOSPC past it. */
  fileBytesPerRun: number;
  /** Make the snapshot (the factory's first worker), start from it (its bytes, transferred), or neither. */
  memorySnapshot: MemorySnapshotRequest;
}

export interface ProbeMessage {
  type: 'probe';
}

/** How the worker finds itself served; the answer to a probe, posted on the worker itself. */
export interface HostingReport {
  crossOriginIsolated: boolean;
  /** `new Function(...)` threw: the worker's CSP without 'unsafe-eval' is in force. */
  codeGenerationBlocked: boolean;
}

export interface RunRequest {
  type: 'run';
  id: number;
  code: string;
  maxOutputBytes: number;
}

export type WorkerReply =
  /** `restored`: Pyodide started from the memory snapshot it was given rather than loading. */
  | { type: 'ready'; restored: boolean }
  /** The memory snapshot a worker asked to make one took right after its load, before `ready`. */
  | { type: 'memorySnapshot'; bytes: Uint8Array }
  | { type: 'loadFailed'; message: string }
  /** The worker's answer to a run: checked field by field on the page (runResult.ts). */
  | ({ type: 'result'; id: number } & IsolatedReply);
