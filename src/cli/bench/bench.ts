/**
 * npm run --silent bench -- [--backend wasm|cpu] [--json] [--short] [--base CHECKPOINT_DIR]
 *
 * The engine's performance benchmark in Node (src/bench/benchmark.ts): prints one JSON object
 * on stdout (pretty, or one line with --json), progress on stderr. Uses the shipped base model when
 * it exists, else a random-init model of the same shape (the timings depend on the shape, the
 * sandbox figures of the step on what the model writes). --short is the CI size (< 60 s).
 */
import { parseArgs } from 'node:util';
import { FULL_SIZES, runBenchmark, SHORT_SIZES } from '../../bench/benchmark';
import { pipelineCriterion } from '../../bench/stepBench';
import { createNodeSandbox } from '../../node/sandbox/nodeSandbox';
import { useNodeBackend } from '../../node/tfBackend';
import { benchModel, watchMachine } from './benchSetup';
import { runMain } from '../runMain';
import { DEFAULT_BASE_CHECKPOINT } from '../cliArgs';

const USAGE = 'usage: npm run --silent bench -- [--backend wasm|cpu] [--json] [--short] [--base CHECKPOINT_DIR]';
/** The trainer CLI's pool size, so the step figures match `npm run train`. */
const SANDBOX_POOL_SIZE = 2;
const RANDOM_INIT_SEED = 1;

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      options: {
        backend: { type: 'string', default: 'wasm' },
        json: { type: 'boolean', default: false },
        short: { type: 'boolean', default: false },
        base: { type: 'string', default: DEFAULT_BASE_CHECKPOINT },
      },
    }).values;
    if (values.backend !== 'wasm' && values.backend !== 'cpu') throw new Error(`--backend must be wasm or cpu, got '${values.backend}'`);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  await useNodeBackend(values.backend as 'wasm' | 'cpu');
  const { model, source } = await benchModel(values.base!, RANDOM_INIT_SEED);
  const sandbox = createNodeSandbox({ size: SANDBOX_POOL_SIZE });
  const machineWatch = watchMachine();
  const started = performance.now();
  try {
    await sandbox.warmUp();
    const report = await runBenchmark({
      model,
      modelSource: source,
      sandbox,
      sizes: values.short ? SHORT_SIZES : FULL_SIZES,
      onPhase: (name) => process.stderr.write(`bench: ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`),
    });
    const machine = {
      ...machineWatch.facts(),
      short: values.short,
      sandboxPoolSize: SANDBOX_POOL_SIZE,
      wallSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
    const out = { machine, ...report, stepCriterion: pipelineCriterion(report.step.nmax2, report.step.nmax0, SANDBOX_POOL_SIZE) };
    process.stdout.write(`${values.json ? JSON.stringify(out) : JSON.stringify(out, null, 2)}\n`);
  } finally {
    model.dispose();
    await sandbox.close();
  }
  return 0;
}

await runMain('bench', main);
