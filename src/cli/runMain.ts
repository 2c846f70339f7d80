/** How the CLIs that load checkpoints end: an exit code, and one line for a checkpoint they refuse. */
import { CheckpointError } from '../node/checkpointFiles';
import { UsageError } from './cliArgs';

/**
 * Runs a CLI's main and sets its exit code. A checkpoint it cannot load, or flags that only turn
 * out wrong against it (a row longer than its context), are refused in one line (exit 2); any other error is printed with its stack (exit 1) here, because the wasm backend's
 * uncaughtException handler rethrows it, and Node then prints that handler's source line first:
 * 39 KB of minified code.
 */
export async function runMain(command: string, main: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    const refused = error instanceof CheckpointError || error instanceof UsageError;
    process.stderr.write(`${command}: ${refused ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = refused ? 2 : 1;
  }
}
