/**
 * Runs that travel (issue 14): a run exported as one file at step 3 imports into a fresh browser
 * profile (a new context: empty IndexedDB) with its curves, samples and settings, and Train
 * continues it from its checkpoint to the same curve, figure for figure (timings aside), as the
 * run trained on without a break in the first browser. Debian Chromium, wasm backend.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';

const STEPS = 6;
const EXPORTED_AT = 3;
const RUN = `steps=${STEPS}&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=2&testEvery=3&filterLow=0&filterHigh=1`;
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 420_000 });

/** Exports the shown run; returns the file's path and its parsed content. */
async function exportRun(page: Page, path: string): Promise<{ path: string; file: { name: string; metrics: Record<string, unknown>[]; checkpoint: { step: number } | null } }> {
  const download = page.waitForEvent('download');
  await page.getByTestId('export-run-button').click();
  await (await download).saveAs(path);
  return { path, file: JSON.parse(readFileSync(path, 'utf8')) };
}

function withoutTimings(metrics: Record<string, unknown>[]): Record<string, unknown>[] {
  return metrics.map(({ seconds: _s, tokensPerSecond: _t, ...figures }) => figures);
}

function shownRunId(page: Page): string | null {
  return new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run');
}

test('an exported run imports into a fresh profile with its curves and trains on to the same curve', async ({ page, browser }, testInfo) => {
  // At home: three steps, the run file, then on to the budget without a break.
  await page.goto(`/?preset=quick&backend=wasm&seed=6#${RUN}`);
  await expect(page.getByTestId('backend-name')).toHaveText('WASM', { timeout: 60_000 });
  for (let step = 1; step <= EXPORTED_AT; step++) {
    await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: TRAINING_TIMEOUT });
    await page.getByTestId('step-button').click();
    await expect(page.getByTestId('step-counter')).toHaveText(String(step), { timeout: TRAINING_TIMEOUT });
  }
  await expect(page.getByTestId('export-run-button')).toBeEnabled({ timeout: 60_000 });
  const atThree = await exportRun(page, testInfo.outputPath('run-at-3.json'));
  expect(atThree.file.checkpoint?.step).toBe(EXPORTED_AT);
  expect(atThree.file.metrics.map((m) => m.step)).toEqual([0, 1, 2, 3]);
  await page.getByTestId('train-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: TRAINING_TIMEOUT });
  const straight = withoutTimings((await exportRun(page, testInfo.outputPath('run-straight.json'))).file.metrics);
  expect(straight.map((m) => m.step)).toEqual([0, 1, 2, 3, 4, 5, 6]);

  // In class: a new profile, nothing stored.
  const classroom = await browser.newContext();
  const school = await classroom.newPage();
  await school.goto('/?backend=wasm');
  await expect(school.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await expect(school.getByTestId('run-item')).toHaveCount(0);

  // A cut file is refused with the reason, and nothing is added.
  const text = readFileSync(atThree.path, 'utf8');
  await school.getByTestId('import-input').setInputFiles({ name: 'cut.json', mimeType: 'application/json', buffer: Buffer.from(text.slice(0, text.length / 2)) });
  await expect(school.locator('.notice-error')).toContainText('import of cut.json refused: the file is not valid JSON');
  await expect(school.getByTestId('run-item')).toHaveCount(0);

  // The run file: the run, its curves to step 3, its answers and its settings, named in the URL.
  await school.getByTestId('import-input').setInputFiles(atThree.path);
  await expect(school.getByTestId('run-item')).toHaveCount(1);
  await expect(school.getByTestId('run-name')).toHaveText(atThree.file.name);
  await expect(school.getByTestId('run-list')).toContainText('saved @3');
  await expect(school.getByTestId('step-counter')).toHaveText(String(EXPORTED_AT));
  await expect(school.getByTestId('seed-input')).toHaveValue('6');
  await expect(school.getByTestId('chart-accuracy').locator('.u-legend .u-series').first().locator('.u-value')).toHaveText(String(EXPORTED_AT));
  await expect(school.getByTestId('current-rollout-sample')).toBeVisible();
  await expect.poll(() => shownRunId(school)).toMatch(/^run-/);
  const imported = withoutTimings((await exportRun(school, testInfo.outputPath('run-imported.json'))).file.metrics);
  expect(imported).toEqual(straight.slice(0, EXPORTED_AT + 1));
  await school.screenshot({ path: testInfo.outputPath('run-imported-1280.png') });

  // Train continues it from step 3, to the curve the first browser drew.
  await school.getByTestId('train-button').click();
  await expect(school.getByTestId('run-status')).toHaveText('finished', { timeout: TRAINING_TIMEOUT });
  await expect(school.getByTestId('step-counter')).toHaveText(String(STEPS));
  await expect(school.getByTestId('run-item')).toHaveCount(1);
  const continued = withoutTimings((await exportRun(school, testInfo.outputPath('run-continued.json'))).file.metrics);
  expect(continued).toEqual(straight);
  const notices = await school.getByTestId('notice').allTextContents();
  expect(notices.filter((n) => /weights only|not loaded here|restarts from step 0/i.test(n))).toEqual([]);
  await classroom.close();
});
