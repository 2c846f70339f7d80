/**
 * npm run pretrain -- [--steps N] [--seed N] [--out DIR] [--tool-prior P] [--kind-mix A,C,S,E,M] [--answer-line-share P] [--batch-size N] [--row-length N] [--lr X]
 *
 * Pretrains the base model on the synthetic corpus (no tool-use transcripts) and writes a
 * checkpoint whose meta holds the model config, the corpus recipe, the pretraining config and
 * the seed, so the shipped base model can be regenerated exactly. Saves every --save-every steps.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_MODEL_CONFIG } from '../core/model/config';
import { GPT } from '../core/model/gpt';
import { BASE_PRETRAIN_CONFIG, Pretrainer, type PretrainConfig } from '../core/pretrain/pretrainer';
import { KINDS, type Kind } from '../core/tasks/problem';
import { loadCheckpointDir, saveCheckpointDir } from '../node/checkpointFiles';
import { useNodeBackend } from '../node/tfBackend';
import { argsOrExitCode, decimalNumber, kindMixFromFlag, parseStringFlags, UsageError } from './cliArgs';
import { runMain } from './runMain';
import { drawProgress, formatDuration, progressLine, yieldToEventLoop } from './progress';

const USAGE = `usage: npm run pretrain -- [--steps N] [--seed N] [--out DIR] [--tool-prior P] [--kind-mix A,C,S,E,M] [--answer-line-share P]
                           [--batch-size N] [--row-length N] [--lr X] [--save-every N] [--from CHECKPOINT_DIR]
defaults: ${JSON.stringify({ ...BASE_PRETRAIN_CONFIG, recipe: undefined })}, out runs/base (the shipped model in public/models/base took six stages: see its RECIPE.md)`;

function positiveNumber(flag: string, raw: string | undefined, fallback: number, integer: boolean, max = Infinity): number {
  if (raw === undefined) return fallback;
  const value = decimalNumber(raw);
  if (value === null || value <= 0 || value > max || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${flag} needs a positive ${integer ? 'whole number' : 'number'}${max < Infinity ? ` up to ${max}` : ''}, got '${raw}'`);
  }
  return value;
}

/** `A,C,S,E,M`: the corpus's shares of arithmetic, compose, search, error-prone and multi-step problems. */
function parseKindMix(raw: string): Record<Kind, number> {
  const mix = kindMixFromFlag(raw);
  const shares = Object.values(mix);
  if (shares.some((x) => x < 0) || shares.every((x) => x === 0)) {
    throw new UsageError(`--kind-mix needs ${KINDS.length} numbers >= 0 (${KINDS.join(',')}), not all 0, got '${raw}'`);
  }
  return mix;
}

function parsePretrainArgs(argv: string[]): { config: PretrainConfig; out: string; from?: string; saveEvery: number } | 'help' {
  const values = parseStringFlags(argv, ['steps', 'seed', 'out', 'tool-prior', 'kind-mix', 'answer-line-share', 'batch-size', 'row-length', 'lr', 'save-every', 'from']);
  if (values.help) return 'help';
  const d = BASE_PRETRAIN_CONFIG;
  const str = (k: string) => values[k] as string | undefined;
  const toolPrior = str('tool-prior') === undefined ? d.recipe.toolPrior : decimalNumber(str('tool-prior')!);
  if (toolPrior === null || !(toolPrior >= 0 && toolPrior <= 1)) throw new UsageError(`--tool-prior needs a number in [0, 1], got '${str('tool-prior')}'`);
  const kindMix = str('kind-mix') === undefined ? d.recipe.kindMix : parseKindMix(str('kind-mix')!);
  const answerLineShare = str('answer-line-share') === undefined ? undefined : decimalNumber(str('answer-line-share')!);
  if (answerLineShare === null || (answerLineShare !== undefined && !(answerLineShare >= 0 && answerLineShare <= 1))) {
    throw new UsageError(`--answer-line-share needs a number in [0, 1], got '${str('answer-line-share')}'`);
  }
  const seedRaw = str('seed');
  const seed = seedRaw === undefined ? d.seed : decimalNumber(seedRaw);
  if (seed === null || !Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed needs a whole number >= 0, got '${seedRaw}'`);
  const config: PretrainConfig = {
    ...d,
    seed,
    steps: positiveNumber('steps', str('steps'), d.steps, true),
    batchSize: positiveNumber('batch-size', str('batch-size'), d.batchSize, true),
    rowLength: positiveNumber('row-length', str('row-length'), d.rowLength, true, BASE_MODEL_CONFIG.contextLength),
    learningRate: positiveNumber('lr', str('lr'), d.learningRate, false),
    recipe: { ...d.recipe, toolPrior, kindMix, ...(answerLineShare === undefined ? {} : { answerLineShare }) },
  };
  return {
    config,
    out: str('out') ?? 'runs/base',
    from: str('from'),
    saveEvery: positiveNumber('save-every', str('save-every'), 100, true),
  };
}

async function main(): Promise<number> {
  const args = argsOrExitCode('pretrain', USAGE, () => parsePretrainArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const { config, out, saveEvery } = args;
  await useNodeBackend('wasm');
  // --from continues from a checkpoint (a second stage with another recipe); its meta is kept as history.
  const start = args.from ? await loadCheckpointDir(args.from) : null;
  const model = start ? start.model : GPT.init(BASE_MODEL_CONFIG, config.seed);
  const pretrainer = new Pretrainer(model, config);
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
