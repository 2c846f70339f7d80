/** Where a CLI's --out cannot go: asked before the work, so minutes of it are not lost to a bad path. */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The file that keeps `dir` from being made a directory: `dir` itself, or the nearest path above it
 * that exists, when that is not a directory (absolute); null when there is none.
 */
export function fileInTheWay(dir: string): string | null {
  for (let path = resolve(dir); ; path = dirname(path)) {
    if (existsSync(path)) return statSync(path).isDirectory() ? null : path;
    if (dirname(path) === path) return null;
  }
}
