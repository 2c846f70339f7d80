/**
 * The backend-switch race in the built lab (issue 14): on WebGL (slow to save a checkpoint on
 * SwiftShader), Step once, pick another backend and press Step at once. The Step must not go to
 * the worker being replaced: it once did, and the page said "paused" with Train and Step dead and
 * further switches hanging until a reload.
 */
import { expect, test } from '@playwright/test';

/** Three steps of 2 prompts x 2 short answers. */
const RUN = 'steps=3&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 480_000 });

test('a Step pressed right after picking another backend waits for it; Step, Train and another switch still work', async ({ page }) => {
  await page.goto(`/?preset=quick&backend=webgl&seed=3#${RUN}`);
  await expect(page.getByTestId('backend-name')).toHaveText('WEBGL', { timeout: 60_000 });
  const step = page.getByTestId('step-button');
  const counter = page.getByTestId('step-counter');
  await expect(step).toBeEnabled({ timeout: 60_000 });
  await step.click();
  await expect(counter).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  await expect(step).toBeEnabled();

  // Pick wasm and press Step in the same moment, before the page redraws (Playwright's own click
  // takes longer than the old worker's save here, so the two events are sent from the page).
  await page.evaluate(() => {
    const select = document.querySelector<HTMLSelectElement>('[data-testid=backend-select]')!;
    select.value = 'wasm';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    document.querySelector<HTMLButtonElement>('[data-testid=step-button]')!.click();
  });
  await expect(page.getByTestId('backend-name')).toHaveText('WASM', { timeout: 60_000 });
  await step.click();
  await expect(counter).toHaveText('2', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('run-status')).toHaveText('paused');
  await page.getByTestId('train-button').click();
  await expect(counter).toHaveText('3', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('run-status')).toHaveText('finished');

  await page.getByTestId('backend-select').selectOption('cpu');
  await expect(page.getByTestId('backend-name')).toHaveText('CPU', { timeout: 60_000 });
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('run-list').getByTestId('run-item')).toHaveCount(1);
  await expect(page.locator('.notice-error')).toHaveCount(0);
});
