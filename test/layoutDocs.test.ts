/**
 * The docs that map the tree match it: README's layout names every folder of src/ and of src/core/
 * and no folder that is not there; docs/architecture.md names only files that exist.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');

function layoutBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Layout'));
  return section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
}

const folders = (dir: string) => readdirSync(join(ROOT, dir)).filter((name) => statSync(join(ROOT, dir, name)).isDirectory());

describe("README's layout", () => {
  it('names every folder of src/ and src/core/', () => {
    const block = layoutBlock();
    const lines = block.split('\n');
    const topLevel = lines.filter((line) => !line.startsWith(' ')).map((line) => line.split(/\s+/)[0]);
    expect(folders('src').map((name) => `src/${name}/`).filter((path) => !topLevel.includes(path))).toEqual([]);
    const coreLines = lines.slice(lines.findIndex((line) => line.startsWith('src/core/')) + 1).filter((line) => line.startsWith('  '));
    const coreNamed = coreLines.flatMap((line) => line.trim().split(/\s{2,}/)[0].split(/,\s*/)).map((name) => name.trim());
    expect(folders('src/core').map((name) => `${name}/`).filter((name) => !coreNamed.includes(name))).toEqual([]);
  });

  it('names no folder that is not there', () => {
    const lines = layoutBlock().split('\n');
    const topLevel = lines.filter((line) => /^\S+\/\s/.test(line)).map((line) => line.split(/\s+/)[0]);
    expect(topLevel.length).toBeGreaterThan(10);
    expect(topLevel.filter((path) => !statSync(join(ROOT, path), { throwIfNoEntry: false })?.isDirectory())).toEqual([]);
    const core = lines.filter((line) => /^ {2}\S/.test(line)).flatMap((line) => line.trim().split(/\s{2,}/)[0].split(/,\s*/));
    const missing = core.filter((name) => !statSync(join(ROOT, 'src/core', name), { throwIfNoEntry: false }));
    expect(missing).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  it('names only files that exist (paths under src/ written from there)', () => {
    const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const paths = [...text.matchAll(/`([\w/.]+\.(?:ts|tsx|md|mjs))`/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(40);
    const exists = (path: string) => [join(ROOT, 'src', path), join(ROOT, path)].some((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });
});
