/** A bundle as one zip file (the lab's download), under a top-level folder named for it. */
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { BundleFiles } from './clusterBundle';

export function bundleZip(folder: string, files: BundleFiles): Uint8Array {
  const entries: Zippable = {};
  for (const [path, contents] of Object.entries(files)) {
    const bytes = typeof contents === 'string' ? strToU8(contents) : contents;
    // run.sh keeps its execute bit (unix mode in the high bits of the external attributes).
    entries[`${folder}/${path}`] = path.endsWith('.sh') ? [bytes, { os: 3, attrs: 0o100755 << 16 }] : bytes;
  }
  return zipSync(entries, { level: 6, mtime: new Date('2026-01-01T00:00:00Z') });
}
