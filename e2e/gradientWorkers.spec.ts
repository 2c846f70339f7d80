/**
 * The lab's gradient helper workers in Chromium (src/browser/gradientWorkers.ts): a minibatch shared
 * with one gives the gradient and figures of the page's thread alone, bit for bit, with chunks
 * computed on each side; a call still waiting when the helpers close is rejected with why, not left
 * hanging (comlink alone would never settle it).
 */
import { expect, test } from '@playwright/test';

test('a minibatch shared with a gradient helper worker is the one thread\'s, bit for bit; closing rejects a waiting call', async ({ page }) => {
  await page.goto('/e2e/harness/gradientWorkers.html');
  await page.waitForFunction(() => 'gradientWorkersHarness' in window);
  const result = await page.evaluate(() => window.gradientWorkersHarness.compare());
  expect(result.chunks).toBeGreaterThan(10);
  expect(result.onHelper).toBeGreaterThan(0);
  expect(result.onHelper).toBeLessThan(result.chunks);
  expect(result.same).toBe(true);
  expect(result.tensorsLeaked).toBe(0);
  expect(result.closedCall).toBe('the gradient helpers were closed');
});
