/**
 * npm run runfile -- pack DIR [--out FILE] [--name NAME]
 * npm run runfile -- unpack FILE --out DIR
 *
 * A run travels between the command line and the lab as the lab's run file (docs/run-file.md):
 * `pack` writes a run directory of `npm run train` as one (the lab's Import opens it, with its
 * curves, and Train continues it); `unpack` writes a run file the lab exported as a run directory,
 * which `npm run train -- --resume DIR` continues exactly where the lab stopped.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MAX_RUN_FILE_CHARS } from '../core/archive/runFile';
import { packRunDirectory, RunDirectoryError, unpackRunFile } from '../node/runDirectory';
import { argsOrExitCode, parseStringFlags, UsageError } from './cliArgs';
import { runMain } from './runMain';

const USAGE = `usage: npm run runfile -- pack DIR [--out FILE] [--name NAME]
         writes the run directory DIR of npm run train as a run file the lab imports
         (default FILE: DIR.json; default NAME: DIR's name)
       npm run runfile -- unpack FILE --out DIR
         writes a run file the lab exported as the run directory DIR, which
         npm run train -- --resume DIR continues`;

type RunFileArgs = { command: 'pack'; dir: string; out: string; name: string | undefined } | { command: 'unpack'; file: string; out: string };

function parseRunFileArgs(argv: string[]): RunFileArgs | 'help' {
  const [command, path, ...rest] = argv;
  if (command === '--help' || command === '-h') return 'help';
  if (command !== 'pack' && command !== 'unpack') throw new UsageError(`the first word must be pack or unpack, got ${JSON.stringify(command ?? '')}`);
  if (path === undefined || path.startsWith('--')) throw new UsageError(`${command} needs ${command === 'pack' ? 'a run directory' : 'a run file'}`);
  const flags = parseStringFlags(rest, command === 'pack' ? ['out', 'name'] : ['out']);
  if (flags.help) return 'help';
  if (command === 'pack') {
    const out = typeof flags.out === 'string' ? flags.out : `${resolve(path)}.json`;
    return { command, dir: path, out, name: flags.name as string | undefined };
  }
  if (typeof flags.out !== 'string') throw new UsageError('unpack needs --out DIR, the run directory to write');
  return { command, file: path, out: flags.out };
}

async function main(): Promise<number> {
  const args = argsOrExitCode('runfile', USAGE, () => parseRunFileArgs(process.argv.slice(2)));
  if (typeof args === 'number') return args;
  try {
    if (args.command === 'pack') {
      await writeFile(args.out, await packRunDirectory(args.dir, args.name));
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

/** The file's text; one larger than any run file is refused before it is read. */
function readRunFile(path: string): string {
  if (!existsSync(path)) throw new RunDirectoryError(`there is no file ${path}`);
  if (statSync(path).size > MAX_RUN_FILE_CHARS * 4) throw new RunDirectoryError(`${path} is larger than a run file can be`);
  return readFileSync(path, 'utf8');
}

await runMain('runfile', main);
