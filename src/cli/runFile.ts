/**
 * npm run runfile -- pack DIR [--out FILE [--force]] [--name NAME]
 * npm run runfile -- unpack FILE --out DIR
 *
 * A run travels between the command line and the lab as the lab's run file (docs/run-file.md):
 * `pack` writes a run directory of `npm run train` as one (the lab's Import opens it, with its
 * curves, and Train continues it); `unpack` writes a run file the lab exported as a run directory,
 * which `npm run train -- --resume DIR` continues exactly where the lab stopped. `pack` refuses an
 * existing FILE unless --force (it could be any file: a run's metrics.jsonl), and writes beside it
 * then renames, so a failed write leaves no half file.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MAX_RUN_FILE_CHARS } from '../core/archive/runFile';
import { fileInTheWay } from '../node/fileInTheWay';
import { packRunDirectory, RunDirectoryError, unpackRunFile } from '../node/runDirectory';
import { argsOrExitCode, parseStringFlags, UsageError } from './cliArgs';
import { runMain } from './runMain';

const USAGE = `usage: npm run runfile -- pack DIR [--out FILE [--force]] [--name NAME]
         writes the run directory DIR of npm run train as a run file the lab imports
         (default FILE: DIR.json; default NAME: DIR's name); an existing FILE is replaced only with --force
       npm run runfile -- unpack FILE --out DIR
         writes a run file the lab exported as the run directory DIR, which
         npm run train -- --resume DIR continues`;

type RunFileArgs = { command: 'pack'; dir: string; out: string; force: boolean; name: string | undefined } | { command: 'unpack'; file: string; out: string };

function parseRunFileArgs(argv: string[]): RunFileArgs | 'help' {
  const [command, path, ...rest] = argv;
  if (command === '--help' || command === '-h') return 'help';
  if (command !== 'pack' && command !== 'unpack') throw new UsageError(`the first word must be pack or unpack, got ${JSON.stringify(command ?? '')}`);
  if (path === undefined || path.startsWith('--')) throw new UsageError(`${command} needs ${command === 'pack' ? 'a run directory' : 'a run file'}`);
  const flags = command === 'pack' ? parseStringFlags(rest, ['out', 'name'], ['force']) : parseStringFlags(rest, ['out']);
  if (flags.help) return 'help';
  if (command === 'pack') {
    const out = typeof flags.out === 'string' ? flags.out : `${resolve(path)}.json`;
    return { command, dir: path, out, force: flags.force === true, name: flags.name as string | undefined };
  }
  if (typeof flags.out !== 'string') throw new UsageError('unpack needs --out DIR, the run directory to write');
  return { command, file: path, out: flags.out };
}

async function main(): Promise<number> {
  const args = argsOrExitCode('runfile', USAGE, () => parseRunFileArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  try {
    if (args.command === 'pack') {
      checkPackOut(args.out, args.force);
      await writeAtomically(args.out, await packRunDirectory(args.dir, args.name));
      process.stderr.write(`runfile: ${args.dir} -> ${args.out} (the lab's Import opens it)\n`);
      return 0;
    }
    const run = await unpackRunFile(readRunFile(args.file), args.out);
    process.stderr.write(`runfile: "${run.name}" at step ${run.checkpoint?.step} -> ${args.out} (npm run train -- --resume ${args.out} continues it)\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RunDirectoryError)) throw error;
    process.stderr.write(`runfile: ${error.message}\n`);
    return 2;
  }
}

/** Refuses, before the run is read, a FILE that pack cannot or must not write. */
function checkPackOut(out: string, force: boolean): void {
  if (existsSync(out)) {
    if (statSync(out).isDirectory()) throw new RunDirectoryError(`--out ${out} is a directory; give the run file's path`);
    if (!force) throw new RunDirectoryError(`--out ${out} already exists; pass --force to replace it, or another --out`);
    return;
  }
  const file = fileInTheWay(dirname(out));
  if (file !== null) throw new RunDirectoryError(`--out ${out} cannot be written: ${file} is a file, not a directory`);
}

/** `text` at `path` whole or not at all: written beside it, then renamed over it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  try {
    await writeFile(partial, text);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw new RunDirectoryError(`cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** The file's text; one larger than any run file is refused before it is read, and so is an eval report, by name. */
function readRunFile(path: string): string {
  if (!existsSync(path)) throw new RunDirectoryError(`there is no file ${path}`);
  if (statSync(path).isDirectory()) throw new RunDirectoryError(`${path} is a directory, not a run file`);
  if (statSync(path).size > MAX_RUN_FILE_CHARS * 4) throw new RunDirectoryError(`${path} is larger than a run file can be`);
  const text = readFileSync(path, 'utf8');
  if (isEvalReport(text)) throw new RunDirectoryError(`${path} is an evaluation report of npm run eval, not a run file (the lab's Export run writes those)`);
  return text;
}

/** An npm run eval report: blocks of pass@1 by Nmax, whose `format` is its tool format, not a file format. */
function isEvalReport(text: string): boolean {
  try {
    const json = JSON.parse(text) as { blocks?: unknown } | null;
    return typeof json === 'object' && json !== null && Array.isArray(json.blocks);
  } catch {
    return false;
  }
}

await runMain('runfile', main);
