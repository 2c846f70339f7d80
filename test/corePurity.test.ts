/**
 * The engine (src/core) runs in Node, a worker and tests alike: it imports no page, worker or UI
 * code and no package beyond its own list, and touches no browser or worker global.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = join(__dirname, '..', 'src', 'core');
/** The packages the engine may import: tfjs's core and the export bundle's writers. */
const ENGINE_PACKAGES = ['@tensorflow/tfjs-core', 'fflate', 'hyparquet-writer'];
const BROWSER_GLOBAL = /\b(window|document|navigator|localStorage|sessionStorage|indexedDB|importScripts)\s*\.|\bself\s*\.|\bpostMessage\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier in `import ... from`, `export ... from`, `import '...'` and `import(...)`. */
function specifiers(source: string): string[] {
  const pattern = /^\s*(?:import|export)\b[^'"]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

describe('src/core', () => {
  const files = sourceFiles(CORE);

  it('imports only engine files and its own packages', () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const local = spec.startsWith('.');
        const target = local ? relative(CORE, join(file, '..', spec)) : spec;
        if (local ? target.startsWith('..') : !ENGINE_PACKAGES.includes(spec)) outside.push(`${relative(CORE, file)}: ${spec}`);
      }
    }
    expect(files.length).toBeGreaterThan(50);
    expect(outside).toEqual([]);
  });

  it('touches no browser or worker global', () => {
    const touching = files.filter((file) => BROWSER_GLOBAL.test(readFileSync(file, 'utf8'))).map((file) => relative(CORE, file));
    expect(touching).toEqual([]);
  });

  it('would see a page import and a DOM global', () => {
    expect(specifiers("import { useLab } from '../../ui/LabContext';\nexport { x } from 'react';\nimport 'comlink';\nconst m = await import('../trainerWorker/protocol');")).toEqual([
      '../../ui/LabContext',
      'react',
      'comlink',
      '../trainerWorker/protocol',
    ]);
    expect(BROWSER_GLOBAL.test('const w = window.innerWidth;')).toBe(true);
    expect(BROWSER_GLOBAL.test('self.postMessage(x)')).toBe(true);
    expect(BROWSER_GLOBAL.test('the model corrects itself. A self-correction')).toBe(false);
  });
});
