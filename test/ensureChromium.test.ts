/** The e2e suite's first step: it passes when the browser is there and stops at once, saying why, when it is not. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function run(chromiumPath: string) {
  return spawnSync(process.execPath, ['scripts/ensureChromium.mjs'], { env: { ...process.env, CHROMIUM_PATH: chromiumPath }, encoding: 'utf8' });
}

describe('scripts/ensureChromium.mjs', () => {
  it('passes when the browser exists', () => {
    expect(run(process.execPath).status).toBe(0);
  });

  it('stops with exit 1 naming the missing path, and installs nothing for a path given by CHROMIUM_PATH', () => {
    const result = run('/nonexistent/chromium');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('CHROMIUM_PATH is /nonexistent/chromium, which does not exist');
  });
});
