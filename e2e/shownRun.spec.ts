/**
 * The screen describes the run it shows (issue 14): the URL names that run, so a reload shows it
 * with its own settings in the knobs and in the presenter caption, even when a field was edited
 * before the reload (the newest stored run was once plotted under the URL's other settings). A
 * link that sets an experiment but names no stored run shows no run.
 */
import { expect, test } from '@playwright/test';
import { storedCheckpoints } from './storedCheckpoints';

const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 300_000 });

test('after a reload the settings and the caption are those of the run on the charts', async ({ page }) => {
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  const runId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run');
  expect(runId).toMatch(/^run-/);
  // The step's checkpoint lands in IndexedDB 10-150 ms after the counter moves; a reload before it
  // keeps the step's metrics but not its state, and the fork below would then be "fork@0".
  await expect.poll(async () => (await storedCheckpoints(page)).some((c) => c.runId === runId && c.step === 1)).toBe(true);

  // A field edited for the next run, then a reload.
  await page.getByTestId('nmax-input').fill('0');
  await expect.poll(() => new URL(page.url()).hash).toContain('nmax=0');
  await page.reload();
  await expect(page.getByTestId('step-counter')).toHaveText('1');
  await expect(page.getByTestId('nmax-input')).toHaveValue('2');
  await expect(page.getByTestId('seed-input')).toHaveValue('3');
  expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run')).toBe(runId);

  // Presenter mode: the caption is the shown run's, whatever the knobs hold.
  await page.getByTestId('nmax-input').fill('1');
  await page.getByTestId('presenter-toggle').click();
  await expect(page.getByTestId('presenter-caption')).toContainText('Nmax 2 · PPO · seed 3');
  await page.getByTestId('presenter-toggle').click();

  // A link with settings and no run of this browser shows no run: its settings are the next run's.
  await page.goto(`/?preset=quick&backend=wasm&seed=5&nmax=1#${TINY_RUN}`);
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('step-counter')).toHaveText('0');
  await expect(page.getByTestId('nmax-input')).toHaveValue('1');
  await expect(page.getByTestId('run-list').getByTestId('run-item')).toHaveCount(1);
  // The bare address shows the newest stored run, with its settings.
  await page.goto('/');
  await expect(page.getByTestId('step-counter')).toHaveText('1');
  await expect(page.getByTestId('seed-input')).toHaveValue('3');

  // A fork's name is shown whole (it differs from its source's only at the end).
  await expect(page.getByTestId('fork-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('fork-button').click();
  const forkName = page.getByTestId('run-list').getByTestId('run-name').filter({ hasText: 'fork@1' });
  await expect(forkName).toHaveText('quick Nmax 2 ppo seed 3 fork@1', { timeout: 60_000 });
  const { scrollWidth, clientWidth, right, listRight } = await forkName.evaluate((element) => ({
    scrollWidth: element.scrollWidth,
    clientWidth: element.clientWidth,
    right: element.getBoundingClientRect().right,
    listRight: element.closest('[data-testid=run-list]')!.getBoundingClientRect().right,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  expect(right).toBeLessThanOrEqual(listRight);
});
