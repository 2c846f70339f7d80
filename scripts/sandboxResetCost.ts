/**
 * What one program and one write-back of the baseline heap cost a sandbox interpreter, measured
 * in this process: Pyodide loaded through the isolation hook, the runner in place, then N small
 * programs of our own, each run and reset timed apart. Prints the medians (p95, min-max) and how much
 * of the baseline is zero runs (interpreterIsolation.mjs, baselineRuns). In-process, so only these
 * fixed programs run here: never a model's, whose boundary is the child process (nodeInterpreter.ts).
 *
 *   npx tsx scripts/sandboxResetCost.ts [N=400]
 */
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { baselineRuns, hookPyodideInstantiation, IsolatedRunner } from '../src/core/sandbox/interpreterIsolation.mjs';
import { PYTHON_RUNNER_SOURCE } from '../src/core/sandbox/pythonRunner';
import { defaultPyodideDir } from '../src/node/sandbox/nodeInterpreter';
import { summarize } from '../src/bench/sandboxBenchmark';

const PROGRAMS = [
  'print(347*29+18)',
  'x = 0\nfor i in range(1, 50):\n    x += i*i\nprint(x)',
  'import math\nprint(math.isqrt(123456789))',
  'n = 347\nwhile n > 9:\n    n = sum(int(c) for c in str(n))\nprint(n)',
];
const WARM_UP = 100;

function quantiles(values: number[]): string {
  const { median, p95, min, max } = summarize(values);
  return `${median} ms (p95 ${p95}, ${min}-${max})`;
}

const count = Number(process.argv[2] ?? 400);
if (!Number.isInteger(count) || count < 1) throw new Error(`usage: npx tsx scripts/sandboxResetCost.ts [N >= 1], got ${process.argv[2]}`);
const indexURL = `${realpathSync(defaultPyodideDir())}/`;
const hook = hookPyodideInstantiation({ heapLimitBytes: 512 * 2 ** 20 });
const { loadPyodide } = (await import(pathToFileURL(`${indexURL}pyodide.mjs`).href)) as typeof import('pyodide');
const pyodide = await loadPyodide({ indexURL, jsglobals: Object.create(null), env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0' } });
hook.release();
const runner = IsolatedRunner.start(pyodide, hook, { runnerSource: PYTHON_RUNNER_SOURCE, interruptBuffer: null, fileBytesPerRun: 64 * 2 ** 20 });
const runs: number[] = [];
const resets: number[] = [];
for (let i = 0; i < WARM_UP + count; i++) {
  const started = performance.now();
  const reply = runner.run(PROGRAMS[i % PROGRAMS.length]!, 1000);
  const ran = performance.now();
  if (reply.replace) throw new Error(`the interpreter cannot be reused: ${reply.reason}`);
  runner.reset();
  if (i < WARM_UP) continue;
  runs.push(ran - started);
  resets.push(performance.now() - ran);
}
const heap = (pyodide as unknown as { _module: { HEAPU8: Uint8Array } })._module.HEAPU8;
const zeroBytes = baselineRuns(heap).reduce((bytes, run) => bytes + (run.zero ? run.end - run.start : 0), 0);
console.log(`${count} programs: run ${quantiles(runs)}, reset ${quantiles(resets)}`);
console.log(`heap ${(heap.length / 2 ** 20).toFixed(1)} MiB, of it zero blocks at the baseline ${(zeroBytes / 2 ** 20).toFixed(1)} MiB`);
