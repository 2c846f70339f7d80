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
 * What a run may ask for. A timer past 2^31 - 1 ms fires at once (a --timeout of 3e9 killed every
 * run at 1 ms), and the output is held in memory.
 */
export const RUN_OPTION_BOUNDS: Record<keyof RunOptions, { min: number; max: number }> = {
  timeoutMs: { min: 1, max: 3_600_000 },
  maxOutputBytes: { min: 0, max: 16 * 2 ** 20 },
};

/** Why these options cannot be run (a field that is not an integer within its bounds), or null. */
export function runOptionsProblem(options: RunOptions): string | null {
  for (const [field, { min, max }] of Object.entries(RUN_OPTION_BOUNDS)) {
    const value = options[field as keyof RunOptions];
    if (!Number.isInteger(value) || value < min || value > max) return `${field} must be an integer from ${min} to ${max}, got ${value}`;
  }
  return null;
}

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
