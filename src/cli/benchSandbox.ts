/**
 * The Node half of the sandbox benchmark: Pyodide in locked-down child processes, measured by
 * benchSandbox (src/core/sandbox/benchmark.ts). Prints one JSON object on stdout.
 *
 *   npm run --silent bench:sandbox [-- --cold-starts 3 --standby-restarts 3 --warm-calls 500 --throughput-calls 400]
 */
import { availableParallelism, loadavg } from 'node:os';
import { benchSandbox, type SandboxBenchOptions } from '../core/sandbox/benchmark';
import { nodeInterpreterFactory } from '../node/sandbox/nodeInterpreter';

type CountOption = Exclude<keyof SandboxBenchOptions, 'poolSizes'>;
const FLAGS: Record<string, CountOption> = {
  '--cold-starts': 'coldStarts',
  '--standby-restarts': 'standbyRestarts',
  '--warm-calls': 'warmCalls',
  '--throughput-calls': 'throughputCalls',
};
const USAGE = `usage: npm run --silent bench:sandbox [-- ${Object.keys(FLAGS).map((flag) => `[${flag} N]`).join(' ')}]`;

function parseArgs(argv: string[]): Partial<SandboxBenchOptions> {
  const options: Partial<Record<CountOption, number>> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = FLAGS[argv[i]!];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < 1) throw new Error(`bad argument ${argv[i]}`);
    options[key] = value;
  }
  return options;
}

async function main(): Promise<number> {
  let options: Partial<SandboxBenchOptions>;
  try {
    options = parseArgs(process.argv.slice(2));
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
