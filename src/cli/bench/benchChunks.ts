/**
 * npm run --silent bench:chunks -- [--base CHECKPOINT_DIR] [--repeats N] [--json]
 *
 * Times a forward and backward pass of the model over chunks of several shapes (Node, wasm) and fits
 * the cost model the update cuts its rows by (src/bench/chunkCost.ts), printing one JSON object:
 * the timings, the fit, and the constants minibatchGradients.ts uses. Progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { CHUNK_SHAPES, fitChunkCost, timeChunk, type ChunkTiming } from '../../bench/chunkCost';
import { round } from '../../bench/generationBench';
import { decimalNumber } from '../../core/experiment';
import { CHUNK_OVERHEAD, WIDTH_DOUBLING } from '../../core/rl/minibatchGradients';
import { useNodeBackend } from '../../node/tfBackend';
import { benchModel, watchMachine } from './benchSetup';
import { runMain } from '../runMain';
import { argsOrExitCode, DEFAULT_BASE_CHECKPOINT, UsageError } from '../cliArgs';

const USAGE = 'usage: npm run --silent bench:chunks -- [--base CHECKPOINT_DIR] [--repeats N] [--json]';

async function main(): Promise<number> {
  const parsed = argsOrExitCode('bench:chunks', USAGE, () => {
    let values;
    try {
      ({ values } = parseArgs({
        args: process.argv.slice(2),
        strict: true,
        options: {
          base: { type: 'string', default: DEFAULT_BASE_CHECKPOINT },
          repeats: { type: 'string', default: '3' },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', short: 'h', default: false },
        },
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.help) return 'help';
    // Decimal only: Number() made `--repeats 0x10` 16 repeats.
    const repeats = decimalNumber(values.repeats);
    if (repeats === null || !Number.isInteger(repeats) || repeats < 1) throw new UsageError(`--repeats must be a positive integer, got '${values.repeats}'`);
    return { base: values.base, json: values.json, repeats };
  });
  if (typeof parsed === 'number') return parsed;
  await useNodeBackend('wasm');
  const { model, source } = await benchModel(parsed.base, 1);
  const machineWatch = watchMachine();
  const timings: ChunkTiming[] = [];
  try {
    await timeChunk(model, 2, 30, 1); // first calls of each kernel are slow on wasm
    for (const [rows, width] of CHUNK_SHAPES) {
      const ms = await timeChunk(model, rows, width, parsed.repeats);
      process.stderr.write(`bench:chunks: ${rows} x ${width}: ${ms.toFixed(1)} ms\n`);
      timings.push({ rows, width, ms: Math.round(ms * 10) / 10 });
    }
  } finally {
    model.dispose();
  }
  const fit = fitChunkCost(timings);
  const out = {
    machine: machineWatch.facts(),
    model: source,
    timings,
    fit: { overheadMs: round(fit.overheadMs, 2), positionMs: round(fit.positionMs, 4), widthDoubling: Math.round(fit.widthDoubling), overheadPositions: Math.round(fit.overheadPositions) },
    inUse: { overheadPositions: CHUNK_OVERHEAD, widthDoubling: WIDTH_DOUBLING },
  };
  process.stdout.write(`${parsed.json ? JSON.stringify(out) : JSON.stringify(out, null, 2)}\n`);
  return 0;
}

await runMain('bench:chunks', main);
