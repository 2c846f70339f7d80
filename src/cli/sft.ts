/**
 * npm run sft -- --base DIR --out DIR --steps N --format retool [--traces N] [--seed N]
 *
 * ReTool's cold start: generates code-augmented traces whose code really runs in the Node sandbox
 * (only traces whose answer verifies are kept), then fine-tunes the base model on them with the
 * prompt and the interpreter output masked from the loss. Writes DIR/traces.jsonl,
 * DIR/sft-log.jsonl and the checkpoint in DIR (meta.sft names the format, so RL and eval pick it).
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_FORMATS, type ToolFormatName } from '../core/env/formats';
import { PRESETS } from '../core/experiment';
import { Random } from '../core/random';
import { ARITHMETIC_ONLY } from '../core/tasks/splits';
import { coldStartTraces, traceResponse } from '../core/sft/coldStartTraces';
import { DEFAULT_SFT_CONFIG, SftTrainer, type SftConfig } from '../core/sft/sftTrainer';
import { loadCheckpointDir, saveCheckpointDir } from '../node/checkpointFiles';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { useNodeBackend } from '../node/tfBackend';
import { argsOrExitCode, decimalNumber, DEFAULT_BASE_CHECKPOINT, parseStringFlags, UsageError } from './cliArgs';
import { runMain } from './runMain';
import { drawProgress, formatDuration, progressLine } from './progress';

const USAGE = `usage: npm run sft -- --out DIR [--base DIR] [--steps N] [--format retool|zerotir] [--traces N] [--seed N]
                      [--batch-size N] [--lr X] [--max-response-tokens N]
defaults: base ${DEFAULT_BASE_CHECKPOINT}, format retool, traces 512, max-response-tokens ${PRESETS.classroom.maxResponseTokens}, ${JSON.stringify(DEFAULT_SFT_CONFIG)}`;

interface SftArgs {
  base: string;
  out: string;
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
  const values = parseStringFlags(argv, ['base', 'out', 'steps', 'format', 'traces', 'seed', 'batch-size', 'lr', 'max-response-tokens']);
  if (values.help) return 'help';
  const str = (k: string) => values[k] as string | undefined;
  const out = str('out');
  if (out === undefined) throw new UsageError('--out DIR is required');
  const format = str('format') ?? 'retool';
  if (!(format in TOOL_FORMATS)) throw new UsageError(`--format must be retool or zerotir, got '${format}'`);
  const seedRaw = str('seed');
  const seed = seedRaw === undefined ? DEFAULT_SFT_CONFIG.seed : decimalNumber(seedRaw);
  if (seed === null || !Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed needs a whole number >= 0, got '${seedRaw}'`);
  const maxResponseTokens = positive('max-response-tokens', str('max-response-tokens'), PRESETS.classroom.maxResponseTokens, true);
  const d = DEFAULT_SFT_CONFIG;
  return {
    base: str('base') ?? DEFAULT_BASE_CHECKPOINT,
    out,
    format: format as ToolFormatName,
    traceCount: positive('traces', str('traces'), 512, true),
    maxResponseTokens,
    config: {
      ...d,
      seed,
      steps: positive('steps', str('steps'), d.steps, true),
      batchSize: positive('batch-size', str('batch-size'), d.batchSize, true),
      learningRate: positive('lr', str('lr'), d.learningRate, false),
      // BOS + the longest prompt (24) + the response + EOS must fit a row.
      rowLength: Math.max(d.rowLength, maxResponseTokens + 32),
    },
  };
}

async function main(): Promise<number> {
  const args = argsOrExitCode('sft', USAGE, () => parseSftArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const { base, out, format, traceCount, maxResponseTokens, config } = args;
  if (!existsSync(join(base, 'model.json'))) {
    process.stderr.write(`sft: no base checkpoint at ${base} (run npm run pretrain, or pass --base DIR)\n`);
    return 2;
  }
  await useNodeBackend('wasm');
  const { model, meta: baseMeta } = await loadCheckpointDir(base);
  const classroom = PRESETS.classroom;
  const sandbox = createNodeSandbox({ size: 2 });
  const started = performance.now();
  mkdirSync(out, { recursive: true });
  let trainer: SftTrainer | null = null;
  try {
    const { traces, drafted } = await coldStartTraces({
      count: traceCount,
      maxDrafts: traceCount * 4,
      format: TOOL_FORMATS[format],
      // Arithmetic only: the recipe the shipped cold start (public/models/coldstart) was made with.
      mix: { tierMix: classroom.tierMix, kindMix: ARITHMETIC_ONLY },
      rng: new Random(config.seed).fork(3),
      sandbox,
      runOptions: { timeoutMs: classroom.sandboxTimeoutMs, maxOutputBytes: 1024 },
      limits: { maxResponseTokens, maxOutputChars: classroom.maxOutputChars },
    });
    writeFileSync(
      join(out, 'traces.jsonl'),
      traces.map((t) => JSON.stringify({ prompt: t.prompt, response: traceResponse(t), tier: t.problem.tier, segments: t.segments })).join('\n') + '\n',
    );
    process.stderr.write(`traces: kept ${traces.length} of ${drafted} drafted (${formatDuration((performance.now() - started) / 1000)})\n`);
    trainer = new SftTrainer(model, traces, config);
    const logPath = join(out, 'sft-log.jsonl');
    writeFileSync(logPath, '');
    let smoothed = NaN;
    while (trainer.step < config.steps) {
      const { step, loss, learningRate } = await trainer.trainStep();
      smoothed = Number.isNaN(smoothed) ? loss : 0.9 * smoothed + 0.1 * loss;
      appendFileSync(logPath, `${JSON.stringify({ step, loss, learningRate })}\n`);
      if (step % 10 === 0 || step === config.steps) drawProgress(progressLine(step, config.steps, started, `loss ${smoothed.toFixed(3)}`));
    }
    await saveCheckpointDir(out, model, {
      kind: 'sft',
      createdBy: 'npm run sft',
      sft: { format, traces: traces.length, drafted, maxResponseTokens, finalLoss: smoothed, ...config },
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
