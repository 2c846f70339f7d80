/**
 * The Node half of the sandbox benchmark: Pyodide in locked-down child processes, measured by
 * benchSandbox (src/bench/sandboxBenchmark.ts). Prints one JSON object on stdout.
 *
 *   npm run --silent bench:sandbox [-- --cold-starts 3 --standby-restarts 3 --warm-calls 500 --throughput-calls 400]
 */
import { benchSandbox, type SandboxBenchOptions } from '../../bench/sandboxBenchmark';
import { nodeInterpreterFactory } from '../../node/sandbox/nodeInterpreter';
import { watchMachine } from './benchSetup';
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
  const machineWatch = watchMachine();
  const node = await benchSandbox(nodeInterpreterFactory(), 'node-child-process', options);
  console.log(JSON.stringify({ machine: machineWatch.facts(), node }, null, 2));
  return 0;
}

process.exitCode = await main();
