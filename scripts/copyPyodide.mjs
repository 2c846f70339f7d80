/**
 * Copies the Pyodide runtime from node_modules/pyodide into public/pyodide/, so the app serves it
 * from its own origin (the python worker passes an explicit indexURL; nothing comes from a CDN).
 * Runs as predev/prebuild; files whose size and mtime already match are left alone.
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'node_modules', 'pyodide');
const target = join(root, 'public', 'pyodide');

// The loader the worker imports, and what it fetches at start.
const RUNTIME_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

function isUpToDate(from, to) {
  try {
    const a = statSync(from);
    const b = statSync(to);
    return a.size === b.size && a.mtimeMs <= b.mtimeMs;
  } catch {
    return false;
  }
}

mkdirSync(target, { recursive: true });
let copied = 0;
for (const name of RUNTIME_FILES) {
  const from = join(source, name);
  const to = join(target, name);
  if (isUpToDate(from, to)) continue;
  copyFileSync(from, to);
  copied += 1;
}
console.log(`copyPyodide: ${copied} of ${RUNTIME_FILES.length} files copied to public/pyodide/`);
