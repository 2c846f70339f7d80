/**
 * npm run export -- --engine verl|openrlhf (--preset NAME | --run DIR) [knobs] --model HF_ID [--micro-batch N] --out DIR
 *
 * Writes the experiment as a directory a cluster engine runs (src/core/export/clusterBundle.ts):
 * the data split as the lab splits it, the lab's reward and tool loop in Python, run.sh with every
 * knob mapped. --run takes a run directory's config (summary.json, else checkpoint/model.json);
 * knob flags override the preset's or the run's values.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configErrors, DEFAULT_PRESET, PRESETS, withSavedConfigDefaults, type ExperimentConfig } from '../core/experiment';
import { clusterBundle, DEFAULT_MICRO_BATCH_CAP, PYTHON_FILES } from '../core/export/clusterBundle';
import { ENGINES, type EngineName } from '../core/export/engineVersions';
import { defaultTrainSize } from '../core/export/exportSplits';
import { DEFAULT_START_MODEL } from '../core/export/startModel';
import { argsOrExitCode, knobOptions, knobUsage, parseStringFlags, presetConfig, UsageError, wholeNumberFlag, withKnobFlags } from './cliArgs';

const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'python');

const USAGE = `usage: npm run export -- --engine ${ENGINES.join('|')} (--preset ${Object.keys(PRESETS).join('|')} | --run DIR)
                         [--model HF_ID] [--train-size N] [--micro-batch N] --out DIR [knobs]
  --engine      the cluster engine: verl (0.6.1) or openrlhf (0.11.0)
  --preset      a lab preset (default ${DEFAULT_PRESET}), or
  --run DIR     a run directory written by npm run train (its config)
  --model       the Hugging Face model id or path to start from (default ${DEFAULT_START_MODEL})
  --train-size  train problems to draw (default steps x prompts-per-step)
  --micro-batch verl: sequences per GPU in each forward pass; must divide each GPU's share of a
                mini-batch (default: run.sh derives it from GPUS, at most ${DEFAULT_MICRO_BATCH_CAP})
  --out         the directory to write
knobs (each overrides the preset's or the run's value):
${knobUsage()}`;

interface ExportArgs {
  engine: EngineName;
  config: ExperimentConfig;
  source: string;
  model: string;
  trainSize: number;
  microBatchPerGpu?: number;
  out: string;
}

/** The config a run directory was trained with. */
function runConfig(dir: string): ExperimentConfig {
  const summary = join(dir, 'summary.json');
  const manifest = join(dir, 'checkpoint', 'model.json');
  let config: unknown;
  if (existsSync(summary)) config = (JSON.parse(readFileSync(summary, 'utf8')) as { config?: unknown }).config;
  else if (existsSync(manifest)) config = (JSON.parse(readFileSync(manifest, 'utf8')) as { meta?: { config?: unknown } }).meta?.config;
  else throw new UsageError(`${dir} has neither summary.json nor checkpoint/model.json (is it a run directory written by npm run train?)`);
  config = withSavedConfigDefaults(config);
  const errors = config && typeof config === 'object' ? Object.values(configErrors(config as ExperimentConfig)) : ['no config'];
  if (errors.length > 0) throw new UsageError(`${dir}: its config is not usable: ${errors.join('; ')}`);
  return config as ExperimentConfig;
}

function parseExportArgs(argv: string[]): ExportArgs | 'help' {
  const flags = parseStringFlags(argv, [...Object.keys(knobOptions()), 'algo', 'engine', 'preset', 'run', 'model', 'train-size', 'micro-batch', 'out']);
  if (flags.help) return 'help';
  if (typeof flags.algo === 'string') flags.algorithm = flags.algo;
  const engine = flags.engine;
  if (engine !== 'verl' && engine !== 'openrlhf') throw new UsageError(`--engine must be ${ENGINES.join(' or ')}, got '${engine ?? ''}'`);
  if (typeof flags.out !== 'string' || flags.out === '') throw new UsageError('--out DIR is required');
  if (typeof flags.preset === 'string' && typeof flags.run === 'string') throw new UsageError('give --preset or --run, not both');
  let base: ExperimentConfig;
  let source: string;
  if (typeof flags.run === 'string') {
    base = runConfig(flags.run);
    source = flags.run.replace(/\/+$/, '').split('/').at(-1) ?? 'run';
  } else {
    source = typeof flags.preset === 'string' ? flags.preset : DEFAULT_PRESET;
    base = presetConfig(source);
  }
  const config = withKnobFlags(base, flags);
  let trainSize = defaultTrainSize(config);
  if (typeof flags['train-size'] === 'string') {
    trainSize = wholeNumberFlag('train-size', flags['train-size'], 1, 10_000_000);
  }
  let microBatchPerGpu: number | undefined;
  if (typeof flags['micro-batch'] === 'string') {
    if (engine !== 'verl') throw new UsageError('--micro-batch is for --engine verl (OpenRLHF keeps its own micro-batch of 1)');
    microBatchPerGpu = wholeNumberFlag('micro-batch', flags['micro-batch'], 1, 4096);
  }
  const model = typeof flags.model === 'string' && flags.model !== '' ? flags.model : DEFAULT_START_MODEL;
  return { engine, config, source, model, trainSize, microBatchPerGpu, out: flags.out };
}

function main(): number {
  const args = argsOrExitCode('export', USAGE, () => parseExportArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const pythonFiles = Object.fromEntries(PYTHON_FILES[args.engine].map((name) => [name, readFileSync(join(PYTHON_DIR, name), 'utf8')]));
  const files = clusterBundle(
    { engine: args.engine, config: args.config, model: args.model, trainSize: args.trainSize, source: args.source, microBatchPerGpu: args.microBatchPerGpu },
    pythonFiles,
  );
  for (const [path, contents] of Object.entries(files)) {
    const target = join(args.out, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, contents);
    if (path.endsWith('.sh')) chmodSync(target, 0o755);
  }
  const counts = JSON.parse(files['experiment.json'] as string) as { trainSize: number; testSize: number };
  process.stderr.write(`export: ${args.engine} bundle in ${args.out} (${counts.trainSize} train, ${counts.testSize} test problems; run ${join(args.out, 'run.sh')})\n`);
  return 0;
}

process.exitCode = main();
