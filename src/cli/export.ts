/**
 * npm run export -- --engine verl|openrlhf (--preset NAME | --run DIR) [knobs] --model HF_ID [--micro-batch N] --out DIR
 *
 * Writes the experiment as a directory a cluster engine runs (src/core/export/clusterBundle.ts):
 * the data split as the lab splits it, the lab's reward and tool loop in Python, run.sh with every
 * knob mapped. --run takes a run directory's config (summary.json, else checkpoint/model.json);
 * knob flags override the preset's or the run's values. A --out that is not empty is refused unless
 * --force, which removes the files a bundle of either engine holds and nothing else.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configErrors, DEFAULT_PRESET, PRESETS, withSavedConfigDefaults, type ExperimentConfig } from '../core/experiment';
import { clusterBundle, DEFAULT_MICRO_BATCH_CAP, PYTHON_FILES, type BundleRequest } from '../core/export/clusterBundle';
import { labMiniBatchRollouts } from '../core/export/engineKnobs';
import { ENGINES, type EngineName } from '../core/export/engineVersions';
import { defaultTrainSize } from '../core/export/exportSplits';
import { DEFAULT_START_MODEL } from '../core/export/startModel';
import { fileInTheWay } from '../node/fileInTheWay';
import { argsOrExitCode, knobOptions, knobUsage, parseStringFlags, presetConfig, UsageError, wholeNumberFlag, withKnobFlags } from './cliArgs';
import { runMain } from './runMain';

const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'python');

const USAGE = `usage: npm run export -- --engine ${ENGINES.join('|')} (--preset ${Object.keys(PRESETS).join('|')} | --run DIR)
                         [--model HF_ID] [--train-size N] [--micro-batch N] --out DIR [--force] [knobs]
  --engine      the cluster engine: verl (0.6.1) or openrlhf (0.11.0)
  --preset      a lab preset (default ${DEFAULT_PRESET}), or
  --run DIR     a run directory written by npm run train (its config)
  --model       the Hugging Face model id or path to start from (default ${DEFAULT_START_MODEL})
  --train-size  train problems to draw (default steps x prompts-per-step)
  --micro-batch verl: sequences per GPU in each forward pass; must divide each GPU's share of a
                mini-batch (default: run.sh derives it from GPUS, at most ${DEFAULT_MICRO_BATCH_CAP})
  --out         the directory to write: new or empty
  --force       write into a --out that is not empty, replacing the files of an earlier bundle (either engine)
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
  force: boolean;
}

/** The config a run directory was trained with. */
function runConfig(dir: string): ExperimentConfig {
  const summary = join(dir, 'summary.json');
  const manifest = join(dir, 'checkpoint', 'model.json');
  let config: unknown;
  if (existsSync(summary)) config = (readJson(summary) as { config?: unknown } | null)?.config;
  else if (existsSync(manifest)) config = (readJson(manifest) as { meta?: { config?: unknown } } | null)?.meta?.config;
  else throw new UsageError(`${dir} has neither summary.json nor checkpoint/model.json (is it a run directory written by npm run train?)`);
  config = withSavedConfigDefaults(config);
  const errors = config && typeof config === 'object' ? Object.values(configErrors(config as ExperimentConfig)) : ['no config'];
  if (errors.length > 0) throw new UsageError(`${dir}: its config is not usable: ${errors.join('; ')}`);
  return config as ExperimentConfig;
}

/** A run directory's file that cannot be read: one line, without the usage, as the flags were right. */
class UnreadableRunError extends Error {}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UnreadableRunError(`${path} is not valid JSON (${(error as Error).message})`);
  }
}

function parseExportArgs(argv: string[]): ExportArgs | 'help' {
  const flags = parseStringFlags(argv, [...Object.keys(knobOptions()), 'algo', 'engine', 'preset', 'run', 'model', 'train-size', 'micro-batch', 'out'], ['force']);
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
  return { engine, config, source, model, trainSize, microBatchPerGpu, out: flags.out, force: flags.force === true };
}

const pythonFiles = (engine: EngineName) => Object.fromEntries(PYTHON_FILES[engine].map((name) => [name, readFileSync(join(PYTHON_DIR, name), 'utf8')]));

/** Every path a bundle of either engine holds, read off the bundles themselves: what --force replaces. */
function bundlePaths(request: BundleRequest): Set<string> {
  return new Set(ENGINES.flatMap((engine) => Object.keys(clusterBundle({ ...request, engine, trainSize: 1, microBatchPerGpu: undefined }, pythonFiles(engine)))));
}

/**
 * Refuses a --out the bundle cannot go to, before a file is written: a file, a path under a file,
 * or (without --force) a directory that holds anything; with --force, removes an earlier bundle's
 * files so two engines' files never mix.
 */
function clearOut(out: string, force: boolean, request: BundleRequest): void {
  const file = fileInTheWay(out);
  if (file === resolve(out)) throw new UsageError(`--out ${out} is a file; give a directory`);
  if (file !== null) throw new UsageError(`--out ${out} cannot be made: ${file} is a file, not a directory`);
  if (!existsSync(out) || readdirSync(out).length === 0) return;
  if (!force) throw new UsageError(`--out ${out} is not empty; pass --force to replace the bundle in it, or give a new directory`);
  for (const path of bundlePaths(request)) rmSync(join(out, path), { force: true });
}

function main(): number {
  let args;
  try {
    args = argsOrExitCode('export', USAGE, () => parseExportArgs(process.argv.slice(2)));
  } catch (error) {
    if (!(error instanceof UnreadableRunError)) throw error;
    throw new UsageError(error.message);
  }
  if (typeof args === 'number') return args;
  const request: BundleRequest = {
    engine: args.engine, config: args.config, model: args.model, trainSize: args.trainSize, source: args.source, microBatchPerGpu: args.microBatchPerGpu,
  };
  clearOut(args.out, args.force, request);
  const rollouts = args.config.promptsPerStep * args.config.groupSize;
  if (labMiniBatchRollouts(args.config) < args.config.minibatchSize) {
    process.stderr.write(
      `export: note: --minibatch-size ${args.config.minibatchSize} is more than a step's ${rollouts} rollouts; the lab learns from them all at once, so the bundle's mini-batch is ${rollouts}\n`,
    );
  }
  const files = clusterBundle(request, pythonFiles(args.engine));
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

await runMain('export', async () => main());
