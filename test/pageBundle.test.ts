/**
 * The page's main bundle holds no tfjs: the engine runs in the trainer worker, and a value import
 * from a page file that reaches the rollout code pulls all of tfjs into `main.js` (issue 27: one
 * 6-line statistic imported from beside the evaluation made it 521 kB instead of 453). Follows the
 * static value imports from the page's entry as Vite bundles them: `import type`, imports of types
 * only, dynamic `import()` (a chunk of its own) and `new Worker(new URL(...))` (a bundle of its own)
 * are not followed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..');
const SUFFIXES = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];

/** The specifiers a file imports for their values (what the bundler keeps). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  return source.statements.flatMap((statement) => {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      return typesOnly ? [] : [(statement.moduleSpecifier as ts.StringLiteral).text];
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && !statement.isTypeOnly) return [(statement.moduleSpecifier as ts.StringLiteral).text];
    return [];
  });
}

function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\?.*$/, ''));
  const found = SUFFIXES.map((s) => base + s).find((p) => existsSync(p) && statSync(p).isFile());
  if (found === undefined) throw new Error(`${relative(ROOT, from)}: cannot resolve '${specifier}'`);
  return found;
}

/** Each package the entry reaches, with the chain of files that reaches it first. */
function packagesReached(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const seen = new Set([entry]);
  const queue: string[][] = [[entry]];
  while (queue.length > 0) {
    const path = queue.shift()!;
    const file = path[path.length - 1];
    for (const specifier of valueImports(file)) {
      if (!specifier.startsWith('.')) {
        if (!reached.has(specifier)) reached.set(specifier, path.map((p) => relative(ROOT, p)));
        continue;
      }
      const target = resolveLocal(file, specifier);
      if (seen.has(target) || !/\.tsx?$/.test(target)) continue;
      seen.add(target);
      queue.push([...path, target]);
    }
  }
  return reached;
}

describe('the page bundle', () => {
  it('reaches no tfjs package from the page entry', () => {
    const tfjs = [...packagesReached(resolve(ROOT, 'src/ui/main.tsx'))].filter(([name]) => name.startsWith('@tensorflow/'));
    expect(tfjs.map(([name, path]) => `${name} via ${path.join(' -> ')}`)).toEqual([]);
  });

  it('would see tfjs reached from the trainer worker, which does import it', () => {
    expect([...packagesReached(resolve(ROOT, 'src/trainerWorker/trainer.worker.ts')).keys()].some((name) => name.startsWith('@tensorflow/'))).toBe(true);
  });
});
