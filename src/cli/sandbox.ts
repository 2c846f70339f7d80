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
import { DEFAULT_RUN_OPTIONS, RUN_OPTION_BOUNDS, type RunOptions } from '../core/sandbox/protocol';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';

const USAGE = 'usage: npm run --silent sandbox -- [--timeout MS] [--max-output BYTES] FILE.py...';

interface Invocation {
  options: RunOptions;
  files: string[];
}

function parseArgs(argv: string[]): Invocation {
  const options = { ...DEFAULT_RUN_OPTIONS };
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--timeout' || arg === '--max-output') {
      const field = arg === '--timeout' ? 'timeoutMs' : 'maxOutputBytes';
      const { min, max } = RUN_OPTION_BOUNDS[field];
      // Decimal digits only: Number() also takes '0x10', '1e3', ' 5' and ''.
      const text = argv[++i] ?? '';
      const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
      if (!(value >= min && value <= max)) throw new Error(`${arg} needs an integer from ${min} to ${max}`);
      options[field] = value;
    } else if (arg.startsWith('-')) {
      throw new Error(`unknown option ${arg}`);
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0) throw new Error('no files given');
  return { options, files };
}

function readSources(files: string[]): string[] {
  return files.map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  });
}

async function main(): Promise<number> {
  let invocation: Invocation;
  let sources: string[];
  try {
    invocation = parseArgs(process.argv.slice(2));
    sources = readSources(invocation.files);
  } catch (error) {
    console.error(`sandbox: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
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
