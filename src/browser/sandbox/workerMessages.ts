/**
 * Messages between a WorkerInterpreter (page side) and workers/python.worker.ts. After `init`, all
 * traffic goes over a private MessagePort, so Python code that reaches the worker's own
 * postMessage/onmessage cannot forge results or read the next run's request.
 */

export interface InitMessage {
  type: 'init';
  port: MessagePort;
  /** One byte the page sets to 2 (SIGINT) to interrupt; null when the page is not crossOriginIsolated. */
  interruptBuffer: SharedArrayBuffer | null;
  /** Cap on the WebAssembly heap: growth past it is refused, so Python raises MemoryError. */
  heapLimitBytes: number;
}

export interface RunRequest {
  type: 'run';
  id: number;
  code: string;
  maxOutputBytes: number;
}

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'loadFailed'; message: string }
  | {
      type: 'result';
      id: number;
      /** The runner's JSON (RunnerOutput); absent when Pyodide failed fatally and is unusable. */
      output?: string;
      failure?: string;
      /** Size of the WebAssembly heap after the run; it never shrinks, so a big one means recycle. */
      heapBytes: number;
    };
