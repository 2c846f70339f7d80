/**
 * Pyodide's memory snapshot shared by a sandbox's interpreters, in Node (a child process each) and
 * in the browser (a worker each): the factory's first interpreter makes it right after its load,
 * before any program runs there; the others start from it, in about half a load's time and CPU
 * (docs/performance.md), and wait for it rather than load beside it. Each still gets its own runner
 * and heap baseline (interpreterIsolation.mjs).
 */
import type { Interpreter, InterpreterFactory } from './protocol';

/** How an interpreter is asked to start: make the snapshot after its load, start from one, or neither. */
export type MemorySnapshotRequest = { make: true } | { load: Uint8Array } | null;

/** An interpreter that can say which snapshot it made (null when it was not asked to make one). */
export interface SnapshotInterpreter extends Interpreter {
  readonly memorySnapshot: Uint8Array | null;
}

/** An InterpreterFactory whose first start makes the snapshot and whose later starts load it. */
export function sharedSnapshotFactory(start: (request: MemorySnapshotRequest) => Promise<SnapshotInterpreter>): InterpreterFactory {
  let snapshot: Promise<Uint8Array | null> | null = null;
  return async () => {
    if (snapshot !== null) {
      const made = await snapshot;
      return start(made === null ? null : { load: made });
    }
    let settle: (made: Uint8Array | null) => void = () => {};
    snapshot = new Promise((resolve) => (settle = resolve));
    try {
      const interpreter = await start({ make: true });
      settle(interpreter.memorySnapshot);
      return interpreter;
    } catch (error) {
      // The starts waiting load afresh; the next one after them tries to make it again.
      snapshot = null;
      settle(null);
      throw error;
    }
  };
}
