/**
 * npm run train -- --preset classroom --seed 1 --nmax 2 --algo ppo --out runs/x
 *
 * RL from the shipped base model, headless: writes DIR/metrics.jsonl (one line per step, step 0
 * is the base model's held-out accuracy), DIR/samples.jsonl, DIR/summary.json and
 * DIR/checkpoint/. Same seed and config, same numbers.
 */
import { mkdirSync, writeFileSync, appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkpointFormat } from '../core/eval/checkpointLimits';
import { DEFAULT_PRESET, PRESETS, type ExperimentConfig } from '../core/experiment';
import { summariseRun } from '../core/metrics/runSummary';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import { Trainer, type StepRecord } from '../core/rl/trainer';
import { loadCheckpointDir, saveCheckpointDir } from '../node/checkpointFiles';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { useNodeBackend, type NodeBackend } from '../node/tfBackend';
import { argsOrExitCode, DEFAULT_BASE_CHECKPOINT, experimentFromFlags, knobOptions, knobUsage, UsageError } from './cliArgs';
import { drawProgress, formatDuration, progressLine, yieldToEventLoop } from './progress';

const USAGE = `usage: npm run train -- [--preset ${Object.keys(PRESETS).join('|')}] [--seed N] [--steps N] [--nmax N]
                        [--algo ppo|reinforce++|grpo] [--out DIR] [--base CHECKPOINT_DIR] [--backend wasm|cpu] [knobs]
knobs (each overrides the preset):
${knobUsage()}`;

interface TrainArgs {
  config: ExperimentConfig;
  preset: string;
  out: string;
  base: string;
  backend: NodeBackend;
  /** --format was given (else a base checkpoint tuned on a format brings its own). */
  formatGiven: boolean;
}

function parseTrainArgs(argv: string[]): TrainArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...knobOptions(),
        preset: { type: 'string' },
        algo: { type: 'string' },
        out: { type: 'string' },
        base: { type: 'string' },
        backend: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const flags = parsed.values as Record<string, string | boolean | undefined>;
  if (flags.help) return 'help';
  if (typeof flags.algo === 'string') flags.algorithm = flags.algo;
  const preset = (flags.preset as string | undefined) ?? DEFAULT_PRESET;
  const config = experimentFromFlags(preset, flags);
  const backend = (flags.backend as string | undefined) ?? 'wasm';
  if (backend !== 'wasm' && backend !== 'cpu') throw new UsageError(`--backend must be wasm or cpu, got '${backend}'`);
  return {
    config,
    preset,
    backend,
    base: (flags.base as string | undefined) ?? DEFAULT_BASE_CHECKPOINT,
    out: (flags.out as string | undefined) ?? join('runs', `${preset}-seed${config.seed}-nmax${config.nmax}-${config.algorithm}`),
    formatGiven: typeof flags.format === 'string',
  };
}

function figures(m: StepMetrics, lastTest: number | null): string {
  const f = (x: number | null, digits = 2) => (x === null ? '--' : x.toFixed(digits));
  return `acc ${f(m.accuracy)} code ${f(m.codeCallFrequency)} calls ${f(m.callsPerResponse)} len ${f(m.responseLength, 0)} test ${f(lastTest)}`;
}

async function main(): Promise<number> {
  const args = argsOrExitCode('train', USAGE, () => parseTrainArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const { config, out } = args;
  if (!existsSync(join(args.base, 'model.json'))) {
    process.stderr.write(`train: no base checkpoint at ${args.base} (run npm run pretrain, or pass --base DIR)\n`);
    return 2;
  }
  await useNodeBackend(args.backend);
  const { model, meta: baseMeta } = await loadCheckpointDir(args.base);
  const tunedFormat = checkpointFormat(baseMeta);
  if (tunedFormat !== null && tunedFormat !== config.format) {
    if (args.formatGiven) {
      process.stderr.write(`train: ${args.base} was tuned on the ${tunedFormat} format; --format ${config.format} would never see its code run\n`);
      model.dispose();
      return 2;
    }
    config.format = tunedFormat;
  }
  const sandbox = createNodeSandbox({ size: 2 });
  mkdirSync(out, { recursive: true });
  const metricsPath = join(out, 'metrics.jsonl');
  const samplesPath = join(out, 'samples.jsonl');
  writeFileSync(metricsPath, '');
  writeFileSync(samplesPath, '');

  const trainer = new Trainer(model, config, sandbox);
  const history: StepMetrics[] = [];
  const started = performance.now();
  let lastTest: number | null = null;
  const record = (r: StepRecord) => {
    history.push(r.metrics);
    if (r.metrics.testAccuracy !== null) lastTest = r.metrics.testAccuracy;
    appendFileSync(metricsPath, `${JSON.stringify(r.metrics)}\n`);
    for (const s of r.samples) appendFileSync(samplesPath, `${JSON.stringify(s)}\n`);
  };
  const finish = async () => {
    await saveCheckpointDir(join(out, 'checkpoint'), model, {
      kind: 'rl',
      preset: args.preset,
      config,
      step: trainer.step,
      base: { path: args.base, meta: baseMeta },
    });
    const wallSeconds = (performance.now() - started) / 1000;
    const summary = {
      preset: args.preset,
      seed: config.seed,
      config,
      backend: args.backend,
      base: args.base,
      wallSeconds,
      stepsCompleted: trainer.step,
      initialTestAccuracy: history[0]?.testAccuracy ?? null,
      finalTestAccuracy: lastTest,
      ...summariseRun(history),
    };
    writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    return wallSeconds;
  };
  let interrupted = false;
  process.once('SIGINT', () => (interrupted = true));

  try {
    record(await trainer.initialRecord());
    drawProgress(progressLine(0, config.steps, started, figures(history[0], lastTest)));
    while (trainer.step < config.steps && !interrupted) {
      const r = await trainer.trainStep();
      record(r);
      drawProgress(progressLine(trainer.step, config.steps, started, figures(r.metrics, lastTest)));
      await yieldToEventLoop();
    }
    const wall = await finish();
    process.stderr.write(`\n${interrupted ? 'interrupted; saved' : 'done'}: ${out} (${formatDuration(wall)})\n`);
  } finally {
    trainer.dispose();
    model.dispose();
    await sandbox.close();
  }
  return interrupted ? 130 : 0;
}

process.exitCode = await main();
