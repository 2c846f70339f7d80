/**
 * The Nmax sweep in the built lab: with the sweep preset chosen, the main Train button trains one
 * tiny run per Nmax (same seed and budget), two at a time in trainer workers of their own (the page
 * is told it has 4 cores: on this machine's 2 the arms train one after another), evaluates each at every Nmax, and the sweep panel
 * overlays one curve per run (held-out accuracy first), tabulates their final figures, fills the
 * train x eval matrix, says in a sentence what the curves show and, under the chart, which gains are
 * beyond noise. At 24 tokens no answer reaches a second call, so the Nmax 2 and 4 arms train
 * identical runs (the Nmax 0 arm too, where no answer completes a first one): every arm is drawn and
 * the panel says which are identical. A run keeps its colour in the compare view.
 * Screenshot: e2e/artifacts/lab-sweep.png.
 */
import { expect, test, type Locator } from '@playwright/test';

/** Two steps of 2 prompts x 2 short answers, greedy test answers kept short too. */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';

test.describe.configure({ timeout: 600_000 });

/** Each legend entry's label (uPlot's x entry left out) with its marker's colour. */
async function legendColours(chart: Locator): Promise<Map<string, string>> {
  const entries = await chart.locator('.u-legend .u-series').all();
  const colours = new Map<string, string>();
  for (const entry of entries.slice(1)) {
    const label = (await entry.locator('.u-label').textContent()) ?? '';
    colours.set(label, await entry.locator('.u-marker').evaluate((marker) => getComputedStyle(marker).borderTopColor));
  }
  return colours;
}

test('the sweep preset: Train trains and evaluates one run per Nmax; curves, table, matrix and conclusion per run', async ({ page }) => {
  // Four cores hold two lanes (sweepLanes.ts); the trainer workers still see the machine's own count.
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4 }));
  await page.goto(`/?preset=sweep&seed=1#${TINY_RUN}&sweep=0,2,4`);
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('tab-sweep').click();
  const panel = page.getByTestId('sweep-panel');
  await expect(panel.getByTestId('sweep-explainer')).toContainText('more calls can lift it further where a question takes several steps or a failed program gets fixed');
  await expect(panel.getByTestId('sweep-explainer')).toContainText('read the single-call share by depth');
  // An arm given twice is refused at the field, and the sweep's values stay as they were.
  await panel.getByTestId('sweep-values').fill('0, 2, 2');
  await expect(panel.getByTestId('sweep-values-error')).toHaveText('each Nmax value once, separated by commas');
  await expect(panel.getByTestId('sweep-start')).toBeDisabled();
  await panel.getByTestId('sweep-values').fill('0, 2, 4');
  await expect(panel.getByTestId('sweep-values-error')).toHaveCount(0);
  await page.getByTestId('train-button').click();

  // The first two arms train side by side, one worker each, with an estimate from the first step,
  // before the first run ends.
  await expect(panel.getByTestId('sweep-progress')).toContainText(/Sweep 0\/3 · training Nmax 0 and 2 side by side · step [1-4] of 6 in all.*ETA \d/, { timeout: 300_000 });

  // Three runs, each evaluated at Nmax 0, 2 and 4: every matrix cell a number.
  const matrixRows = panel.getByTestId('sweep-matrix').locator('tbody tr');
  await expect(matrixRows).toHaveCount(3, { timeout: 300_000 });
  for (const row of await matrixRows.all()) {
    for (const cell of [0, 1, 2]) await expect(row.locator('td').nth(cell)).toHaveText(/^\d\.\d\d$/, { timeout: 450_000 });
  }
  await expect(matrixRows.locator('th')).toHaveText(['0', '2', '4']);

  // One overlaid curve per run, named for its Nmax, held-out accuracy by default; the Nmax 4 run,
  // identical to the Nmax 2 run, is dashed over it and said to be.
  const chart = panel.getByTestId('chart-sweep');
  await expect(chart.getByRole('combobox', { name: 'Metric' })).toHaveValue('testAccuracy');
  const legend = chart.locator('.u-legend .u-series');
  await expect(legend).toHaveCount(4);
  await expect(legend.nth(1)).toContainText('Nmax 0');
  await expect(legend.nth(2)).toContainText('Nmax 2');
  await expect(legend.nth(3)).toContainText(/Nmax 4 \(same run as Nmax [02], dashed\)/);
  await expect(legend.nth(3).locator('.u-marker')).toHaveCSS('border-top-style', 'dashed');
  await expect(panel.getByTestId('sweep-identical')).toContainText('2 and 4 trained identical runs');

  // The conclusion, from the arms' held-out figures: each gain with its standard error, or identical.
  const conclusion = panel.getByTestId('sweep-conclusion');
  await expect(conclusion).toContainText("Held-out greedy accuracy at each run's own Nmax (160 problems; beyond noise = more than 2 standard errors, the evaluation's: another seed's training moves a gain too): Nmax 0 → 2: ");
  await expect(conclusion).toContainText('2 → 4: +0.00 (identical runs).');

  // The final-figures table: every run trained its two steps; the Nmax 0 run never ran code.
  const tableRows = panel.getByTestId('sweep-table').locator('tbody tr');
  await expect(tableRows).toHaveCount(3);
  const noTool = await tableRows.nth(0).locator('td').allTextContents();
  expect(noTool[0]).toBe('2/2');
  expect(noTool[3]).toBe('0.00');
  for (const row of [1, 2]) expect((await tableRows.nth(row).locator('td').allTextContents())[0]).toBe('2/2');
  await expect(page.locator('.notice-error')).toHaveCount(0);
  await panel.screenshot({ path: 'e2e/artifacts/lab-sweep.png' });

  // One colour per run: ticked in the run list (newest first), each run has its sweep colour in the compare view.
  const sweepColours = await legendColours(chart);
  for (const item of await page.getByTestId('run-list').getByTestId('run-item').all()) await item.getByTestId('run-compare').check();
  await page.getByTestId('tab-compare').click();
  const compareColours = await legendColours(page.getByTestId('compare-panel').getByTestId('chart-compare-accuracy'));
  expect(compareColours.size).toBe(3);
  for (const nmax of [0, 2, 4]) {
    const inSweep = [...sweepColours].find(([label]) => label.startsWith(`Nmax ${nmax}`))?.[1];
    const inCompare = [...compareColours].find(([label]) => label.startsWith(`sweep Nmax ${nmax} `))?.[1];
    expect(inSweep, `Nmax ${nmax}`).toBeTruthy();
    expect(inCompare, `Nmax ${nmax}`).toBe(inSweep);
  }
  expect(new Set(sweepColours.values()).size).toBe(3);
});
