/** Types of interpreterIsolation.mjs (plain JavaScript, so that the Node child can load it). */

export function capWasmMemory(binary: ArrayBuffer | Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer>;

export function completeUtf8Length(bytes: Uint8Array): number;

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
  /** Bytes one run may allocate for file contents (they live in JS arrays, outside the heap). */
  fileBytesPerRun: number;
}

export class IsolatedRunner {
  static start(pyodide: unknown, hook: InstantiationHook, options: IsolatedRunnerOptions): IsolatedRunner;
  run(code: string, maxOutputBytes: number): IsolatedReply;
  /** After run()'s reply is sent: restore the baseline (skipped when the reply said replace). */
  reset(): void;
}
