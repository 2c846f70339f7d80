/** Where a CLI's --out cannot go: asked before the work, so minutes of it are not lost to a bad path. */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `path` itself if it exists, else the nearest path above it that does (absolute). */
export function nearestExisting(path: string): string {
  let at = resolve(path);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/**
 * The file that keeps `dir` from being made a directory: `dir` itself, or the nearest path above it
 * that exists, when that is not a directory (absolute); null when there is none.
 */
export function fileInTheWay(dir: string): string | null {
  const at = nearestExisting(dir);
  return existsSync(at) && !statSync(at).isDirectory() ? at : null;
}
