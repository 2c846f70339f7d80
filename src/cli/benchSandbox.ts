/**
 * The Node half of the sandbox benchmark: Pyodide in locked-down child processes, measured by
 * benchSandbox (src/core/sandbox/benchmark.ts). Prints one JSON object on stdout.
 *
 *   npm run --silent bench:sandbox [-- --cold-starts 3 --standby-restarts 3 --warm-calls 500 --throughput-calls 400]
 */
import { availableParallelism, loadavg } from 'node:os';
import { benchSandbox, type SandboxBenchOptions } from '../core/sandbox/benchmark';
import { nodeInterpreterFactory } from '../node/sandbox/nodeInterpreter';
import { parseSandboxBenchFlags, sandboxBenchUsage } from './sandboxBenchFlags';

const USAGE = sandboxBenchUsage('bench:sandbox');

async function main(): Promise<number> {
  let options: Partial<SandboxBenchOptions>;
  try {
    options = parseSandboxBenchFlags(process.argv.slice(2));
  } catch (error) {
    console.error(`bench:sandbox: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const loadBefore = loadavg()[0]!;
  const node = await benchSandbox(nodeInterpreterFactory(), 'node-child-process', options);
  const machine = {
    node: process.version,
    cpus: availableParallelism(),
    loadAverage1m: { before: round(loadBefore), after: round(loadavg()[0]!) }, // the machine is shared
  };
  console.log(JSON.stringify({ machine, node }, null, 2));
  return 0;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

process.exitCode = await main();
