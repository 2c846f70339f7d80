/**
 * Runs Python files through the Node sandbox, in order, on one interpreter (reused unless it had
 * to be recycled, as the trainer uses it), and prints one line of JSON per file: the RunResult
 * plus `file`.
 *
 *   npm run --silent sandbox -- [--timeout MS] [--max-output BYTES] FILE.py...
 *
 * Exit 0 whenever the sandbox itself worked: a Python error, a timeout or a blocked import is a
 * result. Exit 2 on bad arguments or an unreadable file, 1 when the sandbox could not run.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_RUN_OPTIONS, RUN_OPTION_BOUNDS, type RunOptions } from '../core/sandbox/protocol';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { argsOrExitCode, joinNegativeValues, UsageError } from './cliArgs';

const FLAGS = { timeout: 'timeoutMs', 'max-output': 'maxOutputBytes' } as const;
const bounds = (field: keyof RunOptions) => `${RUN_OPTION_BOUNDS[field].min}..${RUN_OPTION_BOUNDS[field].max}`;

const USAGE = `usage: npm run --silent sandbox -- [--timeout MS] [--max-output BYTES] FILE.py...
  --timeout MS        a file's time limit (default ${DEFAULT_RUN_OPTIONS.timeoutMs}, ${bounds('timeoutMs')})
  --max-output BYTES  output kept from a file (default ${DEFAULT_RUN_OPTIONS.maxOutputBytes}, ${bounds('maxOutputBytes')})`;

interface Invocation {
  options: RunOptions;
  files: string[];
  sources: string[];
}

/**
 * The flags as the other CLIs read them (--timeout=500, --help, -h), with the files as positionals.
 * Not strict: node's own messages for an unknown flag tell how to pass a file named like one, and this
 * CLI names the flag alone.
 */
function parseSandboxArgs(argv: string[]): Invocation | 'help' {
  const options = { ...DEFAULT_RUN_OPTIONS };
  const files: string[] = [];
  const { tokens } = parseArgs({
    args: joinNegativeValues(argv, Object.keys(FLAGS)),
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { timeout: { type: 'string' }, 'max-output': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  for (const token of tokens) {
    if (token.kind === 'positional') files.push(token.value);
    if (token.kind !== 'option') continue;
    if (token.name === 'help') return 'help';
    if (!Object.hasOwn(FLAGS, token.name)) throw new UsageError(`unknown option ${token.rawName}`);
    const field = FLAGS[token.name as keyof typeof FLAGS];
    const { min, max } = RUN_OPTION_BOUNDS[field];
    // Decimal digits only: Number() also takes '0x10', '1e3', ' 5' and ''.
    const text = token.value ?? '';
    const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= max)) throw new UsageError(`--${token.name} needs an integer from ${min} to ${max}`);
    options[field] = value;
  }
  if (files.length === 0) throw new UsageError('no files given');
  return { options, files, sources: readSources(files) };
}

function readSources(files: string[]): string[] {
  return files.map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  });
}

async function main(): Promise<number> {
  const invocation = argsOrExitCode('sandbox', USAGE, () => parseSandboxArgs(process.argv.slice(2)));
  if (typeof invocation === 'number') return invocation;
  const { sources } = invocation;
  // No standby: a CLI run is short, and a replacement is started only if one is needed.
  const sandbox = createNodeSandbox({ size: 1, standby: 0 });
  try {
    for (const [i, file] of invocation.files.entries()) {
      const result = await sandbox.run(sources[i]!, invocation.options);
      process.stdout.write(`${JSON.stringify({ file, ...result })}\n`);
    }
    return 0;
  } catch (error) {
    console.error(`sandbox: the sandbox failed: ${String(error)}`);
    return 1;
  } finally {
    await sandbox.close();
  }
}

process.exitCode = await main();
