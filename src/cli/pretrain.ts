/**
 * npm run pretrain -- [--steps N] [--seed N] [--out DIR [--force]] [--tool-prior P] [--search-tool-prior P] [--kind-mix A,C,S,E,M,H] [--answer-line-share P]
 *                      [--chain-stop-share P] [--error-prone-tool-prior P] [--batch-size N] [--row-length N] [--lr X] [--save-every N] [--from DIR [--context-length N]]
 *
 * Pretrains the base model on the synthetic corpus (no tool-use transcripts) and writes a
 * checkpoint whose meta holds the model config, the corpus recipe, the pretraining config and
 * the seed, so the shipped base model can be regenerated exactly. Saves every --save-every steps.
 * --context-length widens a --from model's context: ALiBi has no position weights, so the same
 * weights run on longer rows (base stage 7 went from 256 to 512). A DIR that already holds a model
 * or its log is refused unless --force replaces them: `--out public/models/base` is the shipped model.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decimalNumber } from '../core/experiment';
import { BASE_MODEL_CONFIG } from '../core/model/config';
import { GPT } from '../core/model/gpt';
import { BASE_PRETRAIN_CONFIG, Pretrainer, type PretrainConfig } from '../core/pretrain/pretrainer';
import { KINDS, type Kind } from '../core/tasks/problem';
import { loadCheckpointDir, saveCheckpointDir } from '../node/checkpointFiles';
import { useNodeBackend } from '../node/tfBackend';
import { argsOrExitCode, kindMixFromFlag, parseStringFlags, UsageError } from './cliArgs';
import { modelFilesToReplace, removeModelFiles } from './modelOut';
import { runMain } from './runMain';
import { drawProgress, formatDuration, progressLine, yieldToEventLoop } from './progress';

const USAGE = `usage: npm run pretrain -- [--steps N] [--seed N] [--out DIR [--force]] [--tool-prior P] [--search-tool-prior P] [--kind-mix A,C,S,E,M,H]
                           [--answer-line-share P] [--chain-stop-share P] [--error-prone-tool-prior P] [--batch-size N] [--row-length N]
                           [--lr X] [--save-every N] [--from CHECKPOINT_DIR [--context-length N]]
--force replaces a model already in --out (without it, such a DIR is refused)
defaults: ${JSON.stringify({ ...BASE_PRETRAIN_CONFIG, recipe: undefined })}, out runs/base (the shipped model in public/models/base took twelve stages: see its RECIPE.md)`;

function positiveNumber(flag: string, raw: string | undefined, fallback: number, integer: boolean, max = Infinity): number {
  if (raw === undefined) return fallback;
  const value = decimalNumber(raw);
  if (value === null || value <= 0 || value > max || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${flag} needs a positive ${integer ? 'whole number' : 'number'}${max < Infinity ? ` up to ${max}` : ''}, got '${raw}'`);
  }
  return value;
}

/** `A,C,S,E,M,H`: the corpus's shares of arithmetic, compose, search, error-prone, multi-step and chain problems (five: no chains). */
function parseKindMix(raw: string): Record<Kind, number> {
  const mix = kindMixFromFlag(raw);
  const shares = Object.values(mix);
  if (shares.some((x) => x < 0) || shares.every((x) => x === 0)) {
    throw new UsageError(`--kind-mix needs ${KINDS.length} numbers >= 0 (${KINDS.join(',')}), not all 0, got '${raw}'`);
  }
  return mix;
}

interface PretrainArgs {
  config: PretrainConfig;
  out: string;
  force: boolean;
  from?: string;
  /** The context of the model trained: a fresh model's, or a --from model's widened. */
  contextLength?: number;
  saveEvery: number;
}

function probability(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = decimalNumber(raw);
  if (value === null || !(value >= 0 && value <= 1)) throw new UsageError(`--${flag} needs a number in [0, 1], got '${raw}'`);
  return value;
}

function parsePretrainArgs(argv: string[]): PretrainArgs | 'help' {
  const values = parseStringFlags(argv, [
    'steps', 'seed', 'out', 'tool-prior', 'search-tool-prior', 'kind-mix', 'answer-line-share', 'chain-stop-share', 'error-prone-tool-prior', 'batch-size', 'row-length', 'lr', 'save-every', 'from', 'context-length',
  ], ['force']);
  if (values.help) return 'help';
  const d = BASE_PRETRAIN_CONFIG;
  const str = (k: string) => values[k] as string | undefined;
  const toolPrior = probability('tool-prior', str('tool-prior')) ?? d.recipe.toolPrior;
  const kindMix = str('kind-mix') === undefined ? d.recipe.kindMix : parseKindMix(str('kind-mix')!);
  const answerLineShare = probability('answer-line-share', str('answer-line-share'));
  const searchToolPrior = probability('search-tool-prior', str('search-tool-prior'));
  const chainStopShare = probability('chain-stop-share', str('chain-stop-share'));
  const errorProneToolPrior = probability('error-prone-tool-prior', str('error-prone-tool-prior'));
  const contextLength = str('context-length') === undefined ? undefined : positiveNumber('context-length', str('context-length'), 0, true, 4096);
  if (contextLength !== undefined && str('from') === undefined) throw new UsageError('--context-length widens a --from model; a fresh model has the base config');
  const seedRaw = str('seed');
  const seed = seedRaw === undefined ? d.seed : decimalNumber(seedRaw);
  if (seed === null || !Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed needs a whole number >= 0, got '${seedRaw}'`);
  const config: PretrainConfig = {
    ...d,
    seed,
    steps: positiveNumber('steps', str('steps'), d.steps, true),
    batchSize: positiveNumber('batch-size', str('batch-size'), d.batchSize, true),
    rowLength: positiveNumber('row-length', str('row-length'), d.rowLength, true, contextLength ?? BASE_MODEL_CONFIG.contextLength),
    learningRate: positiveNumber('lr', str('lr'), d.learningRate, false),
    recipe: {
      ...d.recipe,
      toolPrior,
      kindMix,
      ...(answerLineShare === undefined ? {} : { answerLineShare }),
      ...(searchToolPrior === undefined ? {} : { searchToolPrior }),
      ...(chainStopShare === undefined ? {} : { chainStopShare }),
      ...(errorProneToolPrior === undefined ? {} : { errorProneToolPrior }),
    },
  };
  return {
    config,
    out: str('out') ?? 'runs/base',
    force: values.force === true,
    from: str('from'),
    contextLength,
    saveEvery: positiveNumber('save-every', str('save-every'), 100, true),
  };
}

/** `model` with its context widened to `contextLength` (the same weights: ALiBi has none per position); `model` itself when not given. */
function withContextLength(model: GPT, contextLength: number | undefined): GPT {
  if (contextLength === undefined || contextLength === model.config.contextLength) return model;
  if (contextLength < model.config.contextLength) {
    throw new UsageError(`--context-length ${contextLength} is below the --from model's context (${model.config.contextLength})`);
  }
  const weights = Object.fromEntries(model.namedWeights().map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array]));
  const widened = GPT.fromWeights({ ...model.config, contextLength }, weights);
  model.dispose();
  return widened;
}

/** What pretrain writes in DIR: a DIR holding any of them holds another model's work. */
const OUTPUT_FILES = ['model.json', 'weights.bin', 'pretrain-log.jsonl'];

async function main(): Promise<number> {
  const args = argsOrExitCode('pretrain', USAGE, () => parsePretrainArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const { config, out, saveEvery } = args;
  const existing = modelFilesToReplace(out, OUTPUT_FILES, args.force);
  await useNodeBackend('wasm');
  // --from continues from a checkpoint (a second stage with another recipe); its meta is kept as history.
  const start = args.from ? await loadCheckpointDir(args.from) : null;
  const model = start ? withContextLength(start.model, args.contextLength) : GPT.init(BASE_MODEL_CONFIG, config.seed);
  if (config.rowLength > model.config.contextLength) {
    throw new UsageError(`--row-length ${config.rowLength} is longer than the model's context (${model.config.contextLength}); widen it with --context-length`);
  }
  const pretrainer = new Pretrainer(model, config);
  // After --from is loaded: it may be DIR itself.
  removeModelFiles(out, existing);
  mkdirSync(out, { recursive: true });
  const logPath = join(out, 'pretrain-log.jsonl');
  writeFileSync(logPath, '');
  const started = performance.now();
  const meta = () => ({
    kind: 'base',
    createdBy: 'npm run pretrain',
    pretrain: config,
    ...(start ? { continuedFrom: { path: args.from, meta: start.meta } } : {}),
    stepsCompleted: pretrainer.step,
    wallSeconds: (performance.now() - started) / 1000,
  });
  let smoothed = NaN;
  try {
    while (pretrainer.step < config.steps) {
      const { step, loss, learningRate } = await pretrainer.trainStep();
      smoothed = Number.isNaN(smoothed) ? loss : 0.95 * smoothed + 0.05 * loss;
      appendFileSync(logPath, `${JSON.stringify({ step, loss, learningRate })}\n`);
      if (step % 10 === 0 || step === config.steps) {
        drawProgress(progressLine(step, config.steps, started, `loss ${smoothed.toFixed(3)} lr ${learningRate.toExponential(1)}`));
      }
      if (step % saveEvery === 0 || step === config.steps) await saveCheckpointDir(out, model, meta());
      await yieldToEventLoop();
    }
    process.stderr.write(`\ndone: ${out} (${formatDuration((performance.now() - started) / 1000)})\n`);
  } finally {
    pretrainer.dispose();
    model.dispose();
  }
  return 0;
}

await runMain('pretrain', main);
