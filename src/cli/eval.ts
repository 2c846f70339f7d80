/**
 * npm run eval -- --checkpoint DIR --nmax 0,1,2,4 --k 8 [--temperature 1 --top-p 0.7] --out FILE
 *
 * ReTool's protocol on the held-out evaluation set (592 problems, splits.ts): k samples per problem, pass@1 averaged over them,
 * by tier, with the code-use figures, one block per inference Nmax. Writes the report as JSON to
 * FILE (stdout without --out) and, after a progress bar, a table on stderr. The tool format and the episode limits come
 * from the checkpoint's run config when it has one (else the classroom preset), unless given.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { decimalNumber, NUMERIC_BOUNDS } from '../core/experiment';
import { TOOL_FORMATS, type ToolFormatName } from '../core/rollout/formats';
import { checkpointEpisodeLimits } from '../core/eval/checkpointLimits';
import { passAtOneReport } from '../core/eval/passAtOne';
import { evalSet } from '../core/tasks/splits';
import { loadCheckpointDir } from '../node/checkpointFiles';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { nearestExisting } from '../node/fileInTheWay';
import { useNodeBackend } from '../node/tfBackend';
import { argsOrExitCode, parseStringFlags, UsageError, wholeNumberFlag } from './cliArgs';
import { runMain } from './runMain';
import { evalTable } from './evalTable';
import { drawProgress, formatDuration, progressLine } from './progress';

const USAGE = `usage: npm run eval -- --checkpoint DIR [--nmax 0,1,2,4] [--k 8] [--temperature 1] [--top-p 0.7]
                       [--seed 0] [--format zerotir|retool] [--max-response-tokens N] [--out FILE]`;

interface EvalArgs {
  checkpoint: string;
  nmaxList: number[];
  k: number;
  temperature: number;
  topP: number;
  seed: number;
  format: ToolFormatName | null;
  maxResponseTokens: number | null;
  out: string | null;
}

function parseEvalArgs(argv: string[]): EvalArgs | 'help' {
  const values = parseStringFlags(argv, ['checkpoint', 'nmax', 'k', 'temperature', 'top-p', 'seed', 'format', 'max-response-tokens', 'out']);
  if (values.help) return 'help';
  const str = (k: string) => values[k] as string | undefined;
  const checkpoint = str('checkpoint');
  if (checkpoint === undefined) throw new UsageError('--checkpoint DIR is required');
  const nmaxList = (str('nmax') ?? '0,1,2,4').split(',').map((n) => wholeNumberFlag('nmax', n, 0, 16));
  const temperature = decimalNumber(str('temperature') ?? '1');
  if (temperature === null || !(temperature >= 0 && temperature <= 5)) throw new UsageError(`--temperature needs a number from 0 to 5, got '${str('temperature')}'`);
  const topP = decimalNumber(str('top-p') ?? '0.7');
  if (topP === null || !(topP > 0 && topP <= 1)) throw new UsageError(`--top-p needs a number in (0, 1], got '${str('top-p')}'`);
  const format = str('format') ?? null;
  // own properties only, as for presets: `--format constructor` must not find Object's
  if (format !== null && !Object.hasOwn(TOOL_FORMATS, format)) throw new UsageError(`--format must be zerotir or retool, got '${format}'`);
  const maxTokens = str('max-response-tokens');
  return {
    checkpoint,
    nmaxList,
    k: wholeNumberFlag('k', str('k') ?? '8', 1, 256),
    temperature,
    topP,
    seed: wholeNumberFlag('seed', str('seed') ?? '0', 0, 2 ** 31 - 1),
    format: format as ToolFormatName | null,
    maxResponseTokens: maxTokens === undefined ? null : wholeNumberFlag('max-response-tokens', maxTokens, 8, NUMERIC_BOUNDS.maxResponseTokens[1]),
    out: str('out') ?? null,
  };
}

/** Why --out cannot take the report, asked before the minutes of sampling rather than after them; null when it can. */
function outFileError(out: string): string | null {
  if (existsSync(out) && statSync(out).isDirectory()) return `--out ${out} is a directory; give the report's file path`;
  const above = nearestExisting(dirname(out));
  if (!statSync(above).isDirectory()) return `--out ${out} cannot be written: ${above} is a file, not a directory`;
  const target = existsSync(out) ? out : above;
  try {
    accessSync(target, constants.W_OK);
  } catch {
    return `--out ${out} cannot be written: ${target} is not writable`;
  }
  return null;
}

async function main(): Promise<number> {
  const args = argsOrExitCode('eval', USAGE, () => parseEvalArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  const outError = args.out === null ? null : outFileError(args.out);
  if (outError !== null) throw new UsageError(outError);
  await useNodeBackend('wasm');
  let loaded;
  try {
    loaded = await loadCheckpointDir(args.checkpoint);
  } catch (error) {
    process.stderr.write(`eval: ${(error as Error).message}\n`);
    return 2;
  }
  const { model, meta } = loaded;
  const fromCheckpoint = checkpointEpisodeLimits(meta);
  const limits = { ...fromCheckpoint, format: args.format ?? fromCheckpoint.format, maxResponseTokens: args.maxResponseTokens ?? fromCheckpoint.maxResponseTokens };
  const sandbox = createNodeSandbox({ size: 2 });
  try {
    const { nmaxList, k, temperature, topP, seed } = args;
    const problems = evalSet();
    const started = performance.now();
    const progress = ({ done, total, nmax, problemsDone }: { done: number; total: number; nmax: number; problemsDone: number }) =>
      drawProgress(progressLine(done, total, started, `chunks | nmax ${nmax}: ${problemsDone}/${problems.length} problems`));
    // The lab's evaluation runs the same function: the same seed gives the same draws there.
    const report = await passAtOneReport(model, problems, { nmaxList, k, temperature, topP, seed, label: args.checkpoint }, limits, sandbox, { progress });
    if (report === null) throw new Error('the evaluation stopped, though nothing asked it to');
    if (process.stderr.isTTY) process.stderr.write('\n');
    // The table first: a write that fails now costs no figure already shown.
    process.stderr.write(`${evalTable(report.blocks)}\n`);
    const json = `${JSON.stringify(report, null, 2)}\n`;
    if (args.out === null) process.stdout.write(json);
    else {
      try {
        mkdirSync(dirname(args.out), { recursive: true });
        writeFileSync(args.out, json);
      } catch (error) {
        process.stdout.write(json);
        throw new UsageError(`cannot write ${args.out} (${(error as NodeJS.ErrnoException).code ?? String(error)}): the report is on stdout instead`);
      }
    }
    process.stderr.write(`done${args.out ? `: ${args.out}` : ''} (${formatDuration(report.wallSeconds)})\n`);
  } finally {
    model.dispose();
    await sandbox.close();
  }
  return 0;
}

await runMain('eval', main);
