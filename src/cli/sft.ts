/**
 * npm run sft -- --base DIR --out DIR [--force] --steps N --format retool [--traces N] [--seed N]
 *
 * ReTool's cold start: generates code-augmented traces for every kind of problem, drawn by the
 * retool preset's kind and tier mix (ReTool's comparison), whose code really runs in the Node sandbox: one call for
 * arithmetic, compose and search, a SyntaxError then a repair in half the error-prone traces, two
 * calls for multi-step, one per division for chains; 40% of drafts verbose (coldStartTraces.ts).
 * Only traces whose answer verifies and that fit the response cap are kept. Then fine-tunes the
 * base model on them with the prompt and the interpreter output masked from the loss. Writes
 * DIR/traces.jsonl (one trace a line, with its kind), DIR/sft-log.jsonl and the checkpoint in DIR
 * (meta.sft names the format, so RL and eval pick it, and the mix). A DIR that already holds a
 * model or its traces is refused unless --force replaces them.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_FORMATS, type ToolFormatName } from '../core/rollout/formats';
import { responseRoom } from '../core/rollout/rollout';
import { decimalNumber, NUMERIC_BOUNDS, PRESETS } from '../core/experiment';
import { Random } from '../core/random';
import { KINDS } from '../core/tasks/problem';
import { formatPrompt } from '../core/tasks/prompt';
import { evalSet, type ProblemMix } from '../core/tasks/splits';
import { coldStartTraces, traceResponse, type ColdStartTrace } from '../core/sft/coldStartTraces';
import { DEFAULT_SFT_CONFIG, SftTrainer, traceRow, type SftConfig } from '../core/sft/sftTrainer';
import { loadCheckpointDir, saveCheckpointDir } from '../node/checkpointFiles';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { useNodeBackend } from '../node/tfBackend';
import { argsOrExitCode, DEFAULT_BASE_CHECKPOINT, parseStringFlags, UsageError, wholeNumberFlag } from './cliArgs';
import { modelFilesToReplace, removeModelFiles } from './modelOut';
import { runMain } from './runMain';
import { drawProgress, formatDuration, progressLine } from './progress';

const USAGE = `usage: npm run sft -- --out DIR [--force] [--base DIR] [--steps N] [--format retool|zerotir] [--traces N] [--seed N]
                      [--batch-size N] [--lr X] [--max-response-tokens N]
--force replaces a model already in --out (without it, such a DIR is refused)
defaults: base ${DEFAULT_BASE_CHECKPOINT}, format retool, traces 512, max-response-tokens ${PRESETS.retool.maxResponseTokens}, ${JSON.stringify(DEFAULT_SFT_CONFIG)}
(rowLength grows to the longest trace); traces drawn by the retool preset's kindMix and tierMix`;

interface SftArgs {
  base: string;
  out: string;
  force: boolean;
  format: ToolFormatName;
  traceCount: number;
  maxResponseTokens: number;
  config: SftConfig;
}

function positive(flag: string, raw: string | undefined, fallback: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const value = decimalNumber(raw);
  if (value === null || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${flag} needs a positive ${integer ? 'whole number' : 'number'}, got '${raw}'`);
  }
  return value;
}

function parseSftArgs(argv: string[]): SftArgs | 'help' {
  const values = parseStringFlags(argv, ['base', 'out', 'steps', 'format', 'traces', 'seed', 'batch-size', 'lr', 'max-response-tokens'], ['force']);
  if (values.help) return 'help';
  const str = (k: string) => values[k] as string | undefined;
  const out = str('out');
  if (out === undefined) throw new UsageError('--out DIR is required');
  const format = str('format') ?? 'retool';
  // own properties only, as for presets: `--format constructor` must not find Object's
  if (!Object.hasOwn(TOOL_FORMATS, format)) throw new UsageError(`--format must be retool or zerotir, got '${format}'`);
  const seedRaw = str('seed');
  const seed = seedRaw === undefined ? DEFAULT_SFT_CONFIG.seed : decimalNumber(seedRaw);
  if (seed === null || !Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed needs a whole number >= 0, got '${seedRaw}'`);
  // Train's and eval's bounds: a model tuned on longer answers could not be trained or evaluated at them.
  const [minTokens, maxTokens] = NUMERIC_BOUNDS.maxResponseTokens;
  const tokensRaw = str('max-response-tokens');
  const maxResponseTokens = tokensRaw === undefined ? PRESETS.retool.maxResponseTokens : wholeNumberFlag('max-response-tokens', tokensRaw, minTokens, maxTokens);
  const d = DEFAULT_SFT_CONFIG;
  return {
    base: str('base') ?? DEFAULT_BASE_CHECKPOINT,
    out,
    force: values.force === true,
    format: format as ToolFormatName,
    traceCount: positive('traces', str('traces'), 512, true),
    maxResponseTokens,
    config: {
      ...d,
      seed,
      steps: positive('steps', str('steps'), d.steps, true),
      batchSize: positive('batch-size', str('batch-size'), d.batchSize, true),
      learningRate: positive('lr', str('lr'), d.learningRate, false),
    },
  };
}

/** Kept traces of each kind, the verbose count and the longest response (EOS included), for the log line and meta.sft. */
function traceStats(traces: ColdStartTrace[]) {
  const kinds = Object.fromEntries(KINDS.map((k) => [k, traces.filter((t) => t.problem.kind === k).length]));
  const longestResponse = Math.max(...traces.map((t) => traceResponse(t).length + 1));
  return { kinds, verbose: traces.filter((t) => t.verbose).length, longestResponse };
}

/** What sft writes in DIR: a DIR holding any of them holds another model's work. */
const OUTPUT_FILES = ['model.json', 'weights.bin', 'traces.jsonl', 'sft-log.jsonl'];

async function main(): Promise<number> {
  const args = argsOrExitCode('sft', USAGE, () => parseSftArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const { base, out, format, traceCount, maxResponseTokens } = args;
  const existing = modelFilesToReplace(out, OUTPUT_FILES, args.force);
  if (!existsSync(join(base, 'model.json'))) {
    process.stderr.write(`sft: no base checkpoint at ${base} (run npm run pretrain, or pass --base DIR)\n`);
    return 2;
  }
  await useNodeBackend('wasm');
  const { model, meta: baseMeta } = await loadCheckpointDir(base);
  // The problems RL will see in ReTool's comparison.
  const retool = PRESETS.retool;
  const mix: ProblemMix = { tierMix: retool.tierMix, kindMix: retool.kindMix };
  // RL and evaluation from this checkpoint need BOS, the longest question and a full-cap response to fit the context.
  const longestPrompt = Math.max(...evalSet().map((p) => formatPrompt(p).length));
  const { contextLength } = model.config;
  if (maxResponseTokens > responseRoom(contextLength, longestPrompt)) {
    model.dispose();
    throw new UsageError(
      `the model's context (${contextLength} tokens) cannot hold a ${longestPrompt}-token prompt and an answer of up to ${maxResponseTokens}: ` +
        `pass --max-response-tokens ${responseRoom(contextLength, longestPrompt)} or less, or start from a model with a longer context`,
    );
  }
  const sandbox = createNodeSandbox({ size: 2 });
  const started = performance.now();
  removeModelFiles(out, existing);
  mkdirSync(out, { recursive: true });
  let trainer: SftTrainer | null = null;
  try {
    drawProgress(progressLine(0, traceCount, started, 'traces kept | 0 drafted'));
    const { traces, drafted } = await coldStartTraces({
      count: traceCount,
      maxDrafts: traceCount * 4,
      format: TOOL_FORMATS[format],
      mix,
      rng: new Random(args.config.seed).fork(3),
      sandbox,
      runOptions: { timeoutMs: retool.sandboxTimeoutMs, maxOutputBytes: 1024 },
      limits: { maxResponseTokens, maxOutputChars: retool.maxOutputChars },
      onBatch: (kept, drafts) => drawProgress(progressLine(kept, traceCount, started, `traces kept | ${drafts} drafted`)),
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (traces.length === 0) throw new UsageError(`no trace of ${drafted} drafted fits --max-response-tokens ${maxResponseTokens}`);
    const stats = traceStats(traces);
    process.stderr.write(
      `traces: kept ${traces.length} of ${drafted} drafted (${formatDuration((performance.now() - started) / 1000)}): ` +
        `${KINDS.map((k) => `${k} ${stats.kinds[k]}`).join(', ')}; ${stats.verbose} verbose; longest response ${stats.longestResponse} tokens\n`,
    );
    writeFileSync(
      join(out, 'traces.jsonl'),
      traces
        .map((t) => JSON.stringify({ prompt: t.prompt, response: traceResponse(t), kind: t.problem.kind, tier: t.problem.tier, verbose: t.verbose, segments: t.segments }))
        .join('\n') + '\n',
    );
    // A row's inputs are BOS, the prompt and the response (EOS is only a target): as long as the longest trace needs.
    const config: SftConfig = { ...args.config, rowLength: Math.max(args.config.rowLength, ...traces.map((t) => traceRow(t).ids.length - 1)) };
    trainer = new SftTrainer(model, traces, config);
    const logPath = join(out, 'sft-log.jsonl');
    writeFileSync(logPath, '');
    let smoothed = NaN;
    // The ETA is the training steps' alone: the traces took their own time, already spent.
    const trainStarted = performance.now();
    while (trainer.step < config.steps) {
      const { step, loss, learningRate } = await trainer.trainStep();
      smoothed = Number.isNaN(smoothed) ? loss : 0.9 * smoothed + 0.1 * loss;
      appendFileSync(logPath, `${JSON.stringify({ step, loss, learningRate })}\n`);
      if (step % 10 === 0 || step === config.steps) drawProgress(progressLine(step, config.steps, trainStarted, `loss ${smoothed.toFixed(3)}`));
    }
    await saveCheckpointDir(out, model, {
      kind: 'sft',
      createdBy: 'npm run sft',
      sft: { format, traces: traces.length, drafted, mix, ...stats, maxResponseTokens, finalLoss: smoothed, ...config },
      wallSeconds: (performance.now() - started) / 1000,
      base: { path: base, meta: baseMeta },
    });
    process.stderr.write(`\ndone: ${out} (${formatDuration((performance.now() - started) / 1000)})\n`);
  } finally {
    trainer?.dispose();
    model.dispose();
    await sandbox.close();
  }
  return 0;
}

await runMain('sft', main);
