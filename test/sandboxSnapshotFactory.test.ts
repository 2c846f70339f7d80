/**
 * The factory shared by the Node and browser sandboxes (core/sandbox/memorySnapshot.ts): the first
 * start makes Pyodide's memory snapshot, starts asked for meanwhile wait for it and load it, and a
 * failed first start lets the waiting ones load afresh and the next one try again. The stand-in
 * interpreter behaves as NodeInterpreter.start and WorkerInterpreter.spawn do: it resolves once
 * started, with the bytes it made only when asked to make them, and a start can fail.
 */
import { describe, expect, it } from 'vitest';
import { sharedSnapshotFactory, type MemorySnapshotRequest, type SnapshotInterpreter } from '../src/core/sandbox/memorySnapshot';
import { diedResult } from '../src/core/sandbox/runResult';

const SNAPSHOT = new Uint8Array([1, 2, 3]);

function standIn(failFirst: boolean) {
  const requests: MemorySnapshotRequest[] = [];
  let release: () => void = () => {};
  const firstStarted = new Promise<void>((resolve) => (release = resolve));
  const start = async (request: MemorySnapshotRequest): Promise<SnapshotInterpreter> => {
    requests.push(request);
    if (requests.length === 1) {
      await firstStarted;
      if (failFirst) throw new Error('Python worker failed to load');
    }
    return {
      memorySnapshot: request !== null && 'make' in request ? SNAPSHOT : null,
      needsRecycle: false,
      runsServed: 0,
      run: async () => diedResult('not run', 0),
      terminate: async () => {},
    };
  };
  return { requests, start, release };
}

describe('sharedSnapshotFactory', () => {
  it('makes the snapshot at the first start; starts asked for meanwhile wait and load it, as later ones do', async () => {
    const { requests, start, release } = standIn(false);
    const factory = sharedSnapshotFactory(start);
    const first = factory();
    const second = factory();
    await Promise.resolve();
    expect(requests).toEqual([{ make: true }]);
    release();
    await Promise.all([first, second]);
    await factory();
    expect(requests).toEqual([{ make: true }, { load: SNAPSHOT }, { load: SNAPSHOT }]);
  });

  it('after a failed first start the waiting starts load afresh and the next one makes the snapshot again', async () => {
    const { requests, start, release } = standIn(true);
    const factory = sharedSnapshotFactory(start);
    const first = factory();
    const second = factory();
    release();
    await expect(first).rejects.toThrow('failed to load');
    await second;
    await factory();
    await factory();
    expect(requests).toEqual([{ make: true }, null, { make: true }, { load: SNAPSHOT }]);
  });
});
