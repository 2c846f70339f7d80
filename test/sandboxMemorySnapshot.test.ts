/**
 * A Node sandbox factory's first interpreter makes Pyodide's memory snapshot right after its load,
 * before any program runs there; the others are restored from it (half a load's time and CPU,
 * docs/performance.md). What programs see must not tell the two apart: this file checks the wiring
 * and the plainest state; test/sandboxIsolation.test.ts runs its probes on restored interpreters
 * against a loaded one's (they caught a restored sys.path holding '' twice).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Interpreter } from '../src/core/sandbox/protocol';
import { NodeInterpreter, nodeInterpreterFactory } from '../src/node/sandbox/nodeInterpreter';

const RUN = { timeoutMs: 10_000, maxOutputBytes: 100_000 };
const STATE = `import sys, os, random
print(sys.path, sorted(sys.modules) == sorted(set(sys.modules)), len(sys.modules), os.getcwd(), sorted(os.environ))
print(random.random(), hash('tirlab'), {3, 1, 2}, sys.getrecursionlimit())`;

const started: Interpreter[] = [];

afterAll(async () => {
  await Promise.all(started.map((interpreter) => interpreter.terminate()));
});

describe('Pyodide memory snapshot in the Node sandbox', () => {
  it("restores every interpreter after a factory's first from the snapshot that one made, and programs see the same state", async () => {
    const factory = nodeInterpreterFactory();
    // Asked at once, as a pool does at its start: the second waits for the first's snapshot.
    const [first, second] = (await Promise.all([factory(), factory()])) as NodeInterpreter[];
    const third = (await factory()) as NodeInterpreter;
    started.push(first, second, third);
    expect(first.restoredFromSnapshot).toBe(false);
    expect(first.memorySnapshot?.byteLength).toBeGreaterThan(16 * 2 ** 20);
    expect([second.restoredFromSnapshot, third.restoredFromSnapshot]).toEqual([true, true]);
    expect([second.memorySnapshot, third.memorySnapshot]).toEqual([null, null]);

    const seen = await Promise.all([first, second, third].map((interpreter) => interpreter.run(STATE, RUN)));
    expect(seen.map((result) => result.ok)).toEqual([true, true, true]);
    expect(seen[0].stdout).toContain("['', '/lib/python314.zip'");
    expect(seen[1].stdout).toBe(seen[0].stdout);
    expect(seen[2].stdout).toBe(seen[0].stdout);
  }, 120_000);

  it('a lone interpreter neither makes nor takes a snapshot', async () => {
    const alone = await NodeInterpreter.start();
    started.push(alone);
    expect(alone.restoredFromSnapshot).toBe(false);
    expect(alone.memorySnapshot).toBeNull();
    expect((await alone.run('print(6 * 7)', RUN)).stdout).toBe('42\n');
  }, 120_000);
});
