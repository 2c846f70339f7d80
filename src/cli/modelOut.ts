/**
 * A model's --out (pretrain, sft): a directory that already holds a model's files is refused before
 * any work unless --force, as train refuses a run's (`--out public/models/base` is the shipped
 * model); with --force the old files go, so nothing of the replaced model survives beside the new one.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './cliArgs';

/** The files of `names` that `out` holds, which the command will replace; a UsageError when there are some and not `force`. */
export function modelFilesToReplace(out: string, names: readonly string[], force: boolean): string[] {
  const existing = names.filter((name) => existsSync(join(out, name)));
  if (existing.length > 0 && !force) throw new UsageError(`${out} already holds a model (${existing.join(', ')}); pass --force to replace it, or another --out`);
  return existing;
}

export function removeModelFiles(out: string, names: readonly string[]): void {
  for (const name of names) rmSync(join(out, name), { force: true });
}
