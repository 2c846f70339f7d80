/**
 * Slow motion through one RL step at a projector's 1280x720: the button beside Step runs a step
 * stage by stage (Next by click, by the right-arrow key and by N), each stage showing one group's
 * answers with what that stage adds, the per-token advantage colouring of one answer, the step's
 * figures, and then the curves' new point. A screenshot of the advantages stage is saved with the
 * test's output (test-results/slowMotion-*).
 */
import { expect, test, type Page } from '@playwright/test';

/** One step of 2 prompts x 2 short answers on wasm, every group kept so the advantages show. */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000&filterLow=0&filterHigh=1';
const STAGE_TIMEOUT = 120_000;

test.describe.configure({ timeout: 300_000 });

async function currentStage(page: Page): Promise<string> {
  return (await page.locator('[data-testid=slow-motion-stage][aria-current=step]').textContent()) ?? '';
}

test('a step in slow motion: five stages, each held until Next, then the new point on the curves', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${TINY_RUN}`);
  await expect(page.getByTestId('slow-motion-button')).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  await page.getByTestId('slow-motion-button').click();
  const panel = page.getByTestId('slow-motion');
  await expect(panel).toBeVisible();
  // Nothing else starts while the step is held.
  for (const id of ['train-button', 'step-button', 'reset-button', 'slow-motion-button']) await expect(page.getByTestId(id)).toBeDisabled();

  // 1. Rollouts: the group's two answers, no reward yet, the tool's output still to come.
  await expect(panel.getByTestId('slow-motion-rollouts')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Rollouts');
  await expect(panel.getByTestId('slow-motion-answer')).toHaveCount(2);
  await expect(panel.getByTestId('slow-motion-reward')).toHaveCount(0);
  // Held: the step does not go on by itself.
  await page.waitForTimeout(1500);
  expect(await currentStage(page)).toBe('Rollouts');
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  // 2. Python runs, by the right-arrow key.
  await page.keyboard.press('ArrowRight');
  await expect(panel.getByTestId('slow-motion-python')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Python runs');

  // 3. Rewards, by the Next button: one 0/1 reward per answer and the group's mean.
  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-rewards')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await expect(panel.getByTestId('slow-motion-reward')).toHaveCount(2);
  for (const text of await panel.getByTestId('slow-motion-reward').allTextContents()) expect(text).toMatch(/^reward [01]$/);
  await expect(panel).toContainText('group mean reward');

  // 4. Baselines and advantages, by N: an advantage per answer and one answer coloured token by token.
  await page.keyboard.press('n');
  await expect(panel.getByTestId('slow-motion-advantages')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Baselines and advantages');
  await expect(panel.getByTestId('slow-motion-advantage')).toHaveCount(2);
  for (const text of await panel.getByTestId('slow-motion-advantage').allTextContents()) expect(text).toMatch(/^advantage [+-]\d+\.\d\d$/);
  const coloured = panel.getByTestId('advantage-tokens').locator('[data-advantage]');
  expect(await coloured.count()).toBeGreaterThan(3);
  const advantages = (await coloured.evaluateAll((spans) => spans.map((s) => Number(s.getAttribute('data-advantage')))));
  expect(advantages.every(Number.isFinite)).toBe(true);
  await page.screenshot({ path: testInfo.outputPath('slow-motion-advantages-1280x720.png') });
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  // 5. Update: the step's figures; the curves get the point only after this stage's Next.
  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-update')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await expect(panel.getByTestId('slow-motion-metrics')).toContainText('answers right (batch accuracy)');
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-done')).toHaveText('The curves have a new point at step 1.', { timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('New point');
  await expect(page.getByTestId('step-counter')).toHaveText('1');
  const accuracyLegend = page.getByTestId('chart-accuracy').locator('.u-legend');
  await expect(accuracyLegend.locator('.u-series').first().locator('.u-value')).toHaveText('1');
  await expect(accuracyLegend.locator('.u-series').nth(1).locator('.u-value')).toHaveText(/^\d+(\.\d+)?$/);

  await page.getByTestId('slow-motion-close').click();
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('step-button')).toBeEnabled();
});

test('Finish runs the rest of a slow-motion step at once', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`/?preset=quick&backend=wasm&seed=4#${TINY_RUN}`);
  await expect(page.getByTestId('slow-motion-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('slow-motion-button').click();
  await expect(page.getByTestId('slow-motion-rollouts')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await page.getByTestId('slow-motion-finish').click();
  await expect(page.getByTestId('slow-motion-done')).toHaveText('The curves have a new point at step 1.', { timeout: STAGE_TIMEOUT });
  await expect(page.getByTestId('step-counter')).toHaveText('1');
});
