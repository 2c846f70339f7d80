/**
 * The e2e harness pages (e2e/harness/*.html) are built only for the e2e suite (`vite build --mode
 * e2e`, `npm run build:e2e`): a plain `npm run build` ships the app alone. Checked on the config in
 * both modes and on a real plain build's output (built in memory, nothing written).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Rollup } from 'vite';
import { describe, expect, it } from 'vitest';
import { buildInputs, E2E_MODE } from '../vite.config';

const ROOT = join(__dirname, '..');
const harnessPages = readdirSync(join(ROOT, 'e2e/harness')).filter((name) => name.endsWith('.html'));

describe('which pages a build holds', () => {
  it('the app alone in a plain build, the app and every harness page in the e2e build', () => {
    expect(harnessPages.length).toBeGreaterThanOrEqual(4);
    expect(buildInputs('production')).toEqual({ main: 'index.html' });
    expect(Object.values(buildInputs(E2E_MODE)).sort()).toEqual(['index.html', ...harnessPages.map((page) => `e2e/harness/${page}`)].sort());
  });

  it("a plain build's output has the lab's page and no harness page", async () => {
    const output = (await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), mode: 'production', logLevel: 'silent', build: { write: false } })) as
      | Rollup.RollupOutput
      | Rollup.RollupOutput[];
    const files = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output.map((file) => file.fileName));
    expect(files).toContain('index.html');
    expect(files.filter((name) => name.includes('harness') || name.startsWith('e2e/'))).toEqual([]);
  }, 120_000);
});
