/**
 * The sandbox protocol: the one way the engine runs model-written Python. The browser (Pyodide in
 * a module worker) and Node (Pyodide in a locked-down child process) implement the same types.
 */

export interface RunOptions {
  /** Wall-clock limit for the run; the interpreter is interrupted, then killed after a grace. */
  timeoutMs: number;
  /**
   * Cap on stdout + stderr bytes, counted by the host as they are written; output past it is
   * dropped, `truncated` is set and the run is interrupted (an OutputLimit).
   */
  maxOutputBytes: number;
}

/** Error types the sandbox reports. Python exceptions keep their own class name (e.g. ZeroDivisionError). */
export type SandboxErrorType =
  | 'Timeout'
  | 'MemoryError'
  | 'OutputLimit'
  | 'ImportBlocked'
  | 'InputBlocked'
  | 'InterpreterDied'
  | 'InvalidResult'
  | 'RecursionError'
  | string;

export interface RunResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** Set when ok is false. `message` is a short traceback with no host paths. */
  error?: { type: SandboxErrorType; message: string };
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

/** What the trainer needs: run code, concurrently where the implementation allows. */
export interface PythonSandbox {
  run(code: string, options?: Partial<RunOptions>): Promise<RunResult>;
  close(): Promise<void>;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = { timeoutMs: 2000, maxOutputBytes: 4096 };

/**
 * One Python interpreter (a worker in the browser, a child process in Node). It enforces the
 * timeout itself (interrupt, then kill after a grace) and says when it must be replaced; the
 * SandboxPool owns the recycling and the warm standby.
 */
export interface Interpreter {
  /** Resolves with a result for every outcome, Python errors and timeouts included. */
  run(code: string, options: RunOptions): Promise<RunResult>;
  /**
   * True after a kill, a fatal error, a malformed reply, memory over the threshold, or a run the
   * interpreter could not bring back to its baseline (it reached JavaScript, changed files outside
   * the scratch directories): do not reuse.
   */
  readonly needsRecycle: boolean;
  /** Runs completed by this interpreter (the pool recycles every K). */
  readonly runsServed: number;
  terminate(): Promise<void>;
}

export type InterpreterFactory = () => Promise<Interpreter>;
