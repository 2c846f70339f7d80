/** Runs a CLI (src/cli/NAME.ts, NAME a path such as bench/bench) that is expected to refuse its arguments, for the tests of its usage errors. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TSX = join('node_modules', '.bin', 'tsx');

/** The CLI's failure; one that takes the arguments and starts work instead is stopped after two minutes. */
export function cliFailure(cli: string, args: string[]): Promise<{ code: number; stderr: string } | null> {
  return run(TSX, [`src/cli/${cli}.ts`, ...args], { timeout: 120_000 }).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );
}
