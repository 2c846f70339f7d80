/**
 * A reload in the middle of training continues the run exactly: the lab checkpoints the run's whole
 * state (weights, Adam, random streams, step) into IndexedDB after every step, and Train goes on
 * from it (were the reload to land between a step and its save, Train asks before it redoes that
 * step, and is told to). The curve must equal the curve of the same run never reloaded, figure for
 * figure (timings aside). Debian Chromium, wasm backend.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { storedCheckpoints, type StoredCheckpoint } from './storedCheckpoints';

/**
 * 40 tiny steps: the poll below has 30 steps to see a checkpoint at step 10 or later before the end.
 * A KL term, so that the start model is run and the reloaded run's KL reference counts.
 */
const STEPS = 40;
const RUN = 'steps=40&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=2&testEvery=5&filterLow=0&filterHigh=1&klCoef=0.01';
const URL = `/?preset=quick&backend=wasm&seed=4#${RUN}`;
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 420_000 });

/** The selected run's exported metrics, without the timings. */
async function exportedCurve(page: Page): Promise<Record<string, unknown>[]> {
  const download = page.waitForEvent('download');
  await page.getByTestId('export-run-button').click();
  const exported = JSON.parse(readFileSync((await (await download).path())!, 'utf8'));
  return exported.metrics.map(({ seconds: _s, tokensPerSecond: _t, ...figures }: Record<string, unknown>) => figures);
}

test('a reload mid-run continues the run: the same curve as a run never reloaded', async ({ page }) => {
  await page.goto(URL);
  await expect(page.getByTestId('backend-name')).toHaveText('WASM', { timeout: 60_000 });
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });

  // The run never reloaded.
  await page.getByTestId('train-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: TRAINING_TIMEOUT });
  const straight = await exportedCurve(page);
  expect(straight.map((m) => m.step)).toEqual(Array.from({ length: STEPS + 1 }, (_, i) => i));
  expect(straight.slice(1).some((m) => typeof m.kl === 'number' && m.kl !== 0)).toBe(true);

  // The same run again (Train on a finished run starts a new one from the knobs), reloaded while
  // it trains, once a mid-run checkpoint (step 10, 20 or 30) with the whole run state is in IndexedDB.
  await page.getByTestId('train-button').click();
  await expect(page.getByTestId('run-item')).toHaveCount(2);
  const midRun = ({ step, formatVersion }: StoredCheckpoint) => step >= 10 && step < STEPS && formatVersion === 2;
  await expect.poll(async () => (await storedCheckpoints(page)).some(midRun), { timeout: TRAINING_TIMEOUT }).toBe(true);
  const reloadedAt = Number(await page.getByTestId('step-counter').textContent());
  expect(reloadedAt).toBeGreaterThanOrEqual(10);
  expect(reloadedAt).toBeLessThan(STEPS);
  await page.reload();

  await expect(page.getByTestId('run-item')).toHaveCount(2);
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('train-button').click();
  const question = page.getByTestId('restart-question');
  await expect(question.or(page.getByTestId('run-status').filter({ hasText: /training|finished/ }))).toBeVisible({ timeout: 60_000 });
  if (await question.isVisible()) await page.getByTestId('restart-drop').click();
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: TRAINING_TIMEOUT });
  expect(await exportedCurve(page)).toEqual(straight);
  const notices = await page.getByTestId('notice').allTextContents();
  expect(notices.filter((text) => /weights only|not loaded here|error/i.test(text))).toEqual([]);
});
