/**
 * The Nmax sweep in the built lab: with the sweep preset chosen, the main Train button trains one
 * tiny run per Nmax (same seed and budget), evaluates each at every Nmax, and the sweep panel
 * overlays one curve per run, tabulates their final figures, fills the train x eval matrix and
 * says in a sentence what the curves show. Screenshot: e2e/artifacts/lab-sweep.png.
 */
import { expect, test } from '@playwright/test';

/** Two steps of 2 prompts x 2 short answers, greedy test answers kept short too. */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';

test.describe.configure({ timeout: 400_000 });

test('the sweep preset: Train trains and evaluates one run per Nmax; curves, table and matrix per run', async ({ page }) => {
  await page.goto(`/?preset=sweep&seed=1#${TINY_RUN}&sweep=0,2`);
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('tab-sweep').click();
  const panel = page.getByTestId('sweep-panel');
  await expect(panel.getByTestId('sweep-explainer')).toContainText('more calls can lift it further where a failed program gets fixed');
  await page.getByTestId('train-button').click();

  // Two runs, each evaluated at Nmax 0 and 2: every matrix cell a number.
  const matrixRows = panel.getByTestId('sweep-matrix').locator('tbody tr');
  await expect(matrixRows).toHaveCount(2, { timeout: 300_000 });
  for (const row of await matrixRows.all()) {
    await expect(row.locator('td').nth(0)).toHaveText(/^\d\.\d\d$/, { timeout: 300_000 });
    await expect(row.locator('td').nth(1)).toHaveText(/^\d\.\d\d$/, { timeout: 300_000 });
  }
  await expect(matrixRows.locator('th')).toHaveText(['0', '2']);

  // One overlaid curve per run, named for its Nmax.
  const legend = panel.getByTestId('chart-sweep').locator('.u-legend .u-series');
  await expect(legend).toHaveCount(3);
  await expect(legend.nth(1)).toContainText('Nmax 0');
  await expect(legend.nth(2)).toContainText('Nmax 2');

  // The final-figures table: both runs trained their two steps; the Nmax 0 run never ran code.
  const tableRows = panel.getByTestId('sweep-table').locator('tbody tr');
  await expect(tableRows).toHaveCount(2);
  const noTool = await tableRows.nth(0).locator('td').allTextContents();
  expect(noTool[0]).toBe('2/2');
  expect(noTool[3]).toBe('0.00');
  expect((await tableRows.nth(1).locator('td').allTextContents())[0]).toBe('2/2');
  await expect(page.locator('.notice-error')).toHaveCount(0);
  await panel.screenshot({ path: 'e2e/artifacts/lab-sweep.png' });
});
