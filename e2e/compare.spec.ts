/**
 * The compare view in the built lab: two tiny runs that differ in Nmax (and seed) train on the auto-picked
 * backend, both are ticked in the run list, and the compare panel overlays one series per run
 * and tabulates each run (and each arm) with numbers; the code-use charts render.
 * Screenshot: e2e/artifacts/lab-compare.png.
 */
import { expect, test, type Page } from '@playwright/test';

/** Two steps of 2 prompts x 2 short answers: the smallest run that has curves. */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
/** Startup (backend probe, base model, Pyodide, the step-0 test) plus two steps, on two shared cores. */
const RUN_TIMEOUT = 120_000;

test.describe.configure({ timeout: 300_000 });

async function waitFinished(page: Page): Promise<void> {
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: RUN_TIMEOUT });
}

test('two runs ticked: overlaid curves, a table row per run, and the code-use charts', async ({ page }) => {
  await page.goto(`/?preset=quick&seed=1&autostart=1#${TINY_RUN}&nmax=2`);
  await waitFinished(page);
  // The selected run is finished, so Train starts a new run from the knobs (another seed, so the curves part).
  await page.getByTestId('nmax-input').fill('0');
  await page.getByTestId('seed-input').fill('2');
  await page.getByTestId('train-button').click();
  const items = page.getByTestId('run-list').getByTestId('run-item');
  await expect(items).toHaveCount(2);
  await waitFinished(page);

  // The comparison is one click away, in its tab.
  await page.getByTestId('tab-compare').click();
  const panel = page.getByTestId('compare-panel');
  await expect(panel.getByTestId('compare-hint')).toBeVisible();
  for (const item of await items.all()) await item.getByTestId('run-compare').check();

  // One legend entry per run (after uPlot's x entry), named for the run.
  const chart = panel.getByTestId('chart-compare-code');
  await expect(chart.locator('canvas')).toHaveCount(1);
  const legend = chart.locator('.u-legend .u-series');
  await expect(legend).toHaveCount(3);
  await expect(legend.nth(1)).toContainText('Nmax 0 ppo seed 2');
  await expect(legend.nth(2)).toContainText('Nmax 2 ppo seed 1');
  await expect(panel.getByTestId('chart-compare-accuracy').locator('.u-legend .u-series')).toHaveCount(3);

  // Per run: trained steps 2, and figures that are numbers (not dashes).
  const rows = panel.getByTestId('compare-row');
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) {
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('2');
    expect(cells[2]).toMatch(/^\d\.\d\d$/);
    expect(cells[6]).toMatch(/^\d\.\d\d$/);
    // Self-correcting at the start and final: shares of measured steps.
    expect(cells.slice(-2)).toEqual([expect.stringMatching(/^\d\.\d\d$/), expect.stringMatching(/^\d\.\d\d$/)]);
  }
  await expect(panel.getByTestId('compare-arm-row')).toHaveCount(2);
  await expect(panel.getByTestId('compare-summary')).toContainText('nmax 0 vs 2');

  // The code-use charts of the shown run, in the "More charts" tab: a plot with its series.
  await page.getByTestId('tab-charts').click();
  for (const id of ['chart-code-use', 'chart-code-lines']) {
    await expect(page.getByTestId(id)).toBeVisible();
    await expect(page.getByTestId(id).locator('canvas')).toHaveCount(1);
  }
  await expect(page.getByTestId('chart-code-use').locator('.u-legend')).toContainText('answers with code');
  await expect(page.getByTestId('chart-code-use').locator('.u-legend')).toContainText('right tool answer unclaimed');
  await expect(page.getByTestId('chart-code-lines').locator('.u-legend')).toContainText('self-corrections per step');
  // The calls histogram of the shown run's last step: nine bins, the last 8 or more, the answers of a step (2 x 2) in them.
  const histogram = page.getByTestId('chart-calls-histogram');
  await expect(histogram.locator('.bar-label')).toHaveText(['0', '1', '2', '3', '4', '5', '6', '7', '8+']);
  await expect(histogram.locator('.chart-note')).toHaveText('4 answers; x = executed calls (8+: 8 or more)');
  await expect(page.locator('.notice-error')).toHaveCount(0);
  await page.getByTestId('tab-compare').click();
  await panel.screenshot({ path: 'e2e/artifacts/lab-compare.png' });
});
