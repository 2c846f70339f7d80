/**
 * Slow motion through one RL step at a projector's 1280x720: the button beside Step runs a step
 * stage by stage (Next by click, by the right-arrow key and by N), each stage showing one group of
 * eight answers with what that stage adds: the chosen answer in full with each tool output as one
 * block, the rewards, the advantages with their parts (reward, baseline, normalisation) that
 * recompute them, the per-token colouring, the step's figures, and then the curves' new point with
 * the three charts in view. Every stage's content fits its panel unscrolled. Screenshots of each
 * stage at 1280x720 and 390x844 go to e2e/artifacts/slow-motion/.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { redo } from '../test/redoAdvantageSum';

/** One step of 2 prompts x 8 answers on wasm (the presets' group size), every group kept so the advantages show. */
const GROUP_RUN =
  'steps=2&promptsPerStep=2&groupSize=8&minibatchSize=16&maxResponseTokens=120&samplesPerStep=4&testEvery=1000&filterLow=0&filterHigh=1';
const STAGE_TIMEOUT = 120_000;
const PROJECTOR = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };
const SCREENSHOTS = 'e2e/artifacts/slow-motion';
const HEADLINE_CHARTS = ['chart-accuracy', 'chart-code-calls', 'chart-response-length'];

test.describe.configure({ timeout: 300_000 });

async function currentStage(page: Page): Promise<string> {
  return (await page.locator('[data-testid=slow-motion-stage][aria-current=step]').textContent()) ?? '';
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('element is not laid out');
  return found;
}

/** Fails unless the panel lies inside the window and its content needs no scrolling inside it. */
async function expectStageFits(page: Page, name: string): Promise<void> {
  const panel = await box(page.getByTestId('slow-motion'));
  expect(panel.y + panel.height, `${name}: the panel ends inside the window`).toBeLessThanOrEqual(PROJECTOR.height + 0.5);
  const body = await page.locator('.slow-motion-body').evaluate((el) => ({ content: el.scrollHeight, room: el.clientHeight, wide: el.scrollWidth, width: el.clientWidth }));
  expect(body.content, `${name}: ${body.content} px of content in ${body.room} px`).toBeLessThanOrEqual(body.room);
  expect(body.wide, `${name}: ${body.wide} px wide in ${body.width} px`).toBeLessThanOrEqual(body.width);
}

/** Checks the stage fits at 1280x720, then saves it at 1280x720 and at a phone's 390x844. */
async function checkAndShoot(page: Page, index: number, name: string): Promise<void> {
  await expectStageFits(page, name);
  await page.screenshot({ path: `${SCREENSHOTS}/${index}-${name}-1280x720.png` });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${SCREENSHOTS}/${index}-${name}-390x844.png` });
  await page.setViewportSize(PROJECTOR);
}

test('a step in slow motion: five readable stages, each held until Next, then the new point beside the three charts', async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${GROUP_RUN}`);
  await expect(page.getByTestId('slow-motion-button')).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  await page.getByTestId('slow-motion-button').click();
  const panel = page.getByTestId('slow-motion');
  await expect(panel).toBeVisible();
  // Nothing else starts while the step is held.
  for (const id of ['train-button', 'step-button', 'reset-button', 'slow-motion-button']) await expect(page.getByTestId(id)).toBeDisabled();

  // 1. Rollouts: the group's eight answers, no reward yet, the tool's output still to come.
  await expect(panel.getByTestId('slow-motion-rollouts')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Rollouts');
  await expect(panel.getByTestId('slow-motion-answer')).toHaveCount(8);
  await expect(panel.getByTestId('slow-motion-reward')).toHaveCount(0);
  await expect(panel.getByTestId('env-segment')).toHaveCount(0);
  await checkAndShoot(page, 1, 'rollouts');
  // Held: the step does not go on by itself.
  await page.waitForTimeout(1500);
  expect(await currentStage(page)).toBe('Rollouts');
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  // 2. Python runs, by the right-arrow key: the shown answer's outputs, each one block.
  await page.keyboard.press('ArrowRight');
  await expect(panel.getByTestId('slow-motion-python')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Python runs');
  const outputs = panel.getByTestId('slow-motion-shown').getByTestId('env-segment');
  const blocks = await outputs.count();
  expect(blocks, 'the shown answer ran code').toBeGreaterThan(0);
  for (const text of await outputs.allTextContents()) expect(text).toMatch(/^sandbox output · not trained on/);
  await checkAndShoot(page, 2, 'python');

  // 3. Rewards, by the Next button: one 0/1 reward per answer and the group's mean.
  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-rewards')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await expect(panel.getByTestId('slow-motion-reward')).toHaveCount(8);
  const rewards = (await panel.getByTestId('slow-motion-reward').allTextContents()).map(Number);
  expect(rewards.every((r) => r === 0 || r === 1)).toBe(true);
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  await expect(panel).toContainText(`group mean reward ${mean.toFixed(3)}`);
  await checkAndShoot(page, 3, 'rewards');

  // 4. Baselines and advantages, by N: each answer's advantage with its parts, redone from the shown figures.
  await page.keyboard.press('n');
  await expect(panel.getByTestId('slow-motion-advantages')).toBeVisible({ timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('Baselines and advantages');
  await expect(panel.getByTestId('slow-motion-advantage')).toHaveCount(8);
  await expect(panel.getByTestId('slow-motion-baseline')).toHaveCount(8);
  // The quick preset trains with ppo: the baseline is the critic's, the normalisation the batch's.
  await expect(panel.locator('thead')).toContainText("critic's value");
  await expect(panel.getByTestId('slow-motion-arithmetic')).toContainText("advantage = (reward − critic's value − batch mean) ÷ batch std");
  const advantages = await panel.getByTestId('slow-motion-advantage').allTextContents();
  for (const text of advantages) expect(text).toMatch(/^[+-]\d+\.\d\d$/);
  for (let i = 0; i < 8; i++) {
    await panel.getByTestId('slow-motion-answer').nth(i).getByRole('button').click();
    const sum = (await panel.getByTestId('slow-motion-sum').textContent())!;
    const baseline = Number(await panel.getByTestId('slow-motion-baseline').nth(i).textContent());
    const minusBaseline = baseline < 0 ? `+ ${(-baseline).toFixed(3)}` : `− ${baseline.toFixed(3)}`;
    expect(sum.startsWith(`(${rewards[i]} ${minusBaseline} `), `answer ${i + 1}: its reward and baseline are the sum's: ${sum}`).toBe(true);
    // Rounded to three decimals, the parts give the shown advantage to within its last digit.
    expect(Math.abs(redo(sum) - Number(advantages[i])), `answer ${i + 1}: ${sum} = ${advantages[i]}`).toBeLessThanOrEqual(0.011);
  }
  // The shown answer coloured token by token, its tool outputs still one block each.
  await panel.getByTestId('slow-motion-answer').nth(await firstAnswerWithOutput(panel)).getByRole('button').click();
  const coloured = panel.getByTestId('advantage-tokens').locator('[data-advantage]');
  expect(await coloured.count()).toBeGreaterThan(3);
  const tokenAdvantages = await coloured.evaluateAll((spans) => spans.map((s) => Number(s.getAttribute('data-advantage'))));
  expect(tokenAdvantages.every(Number.isFinite)).toBe(true);
  await expect(panel.getByTestId('advantage-tokens').getByTestId('env-segment')).toHaveCount(blocks);
  await checkAndShoot(page, 4, 'advantages');
  await expect(page.getByTestId('step-counter')).toHaveText('0');

  // 5. Update: the step's figures; the curves get the point only after this stage's Next.
  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-update')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await expect(panel.getByTestId('slow-motion-metrics')).toContainText('answers right (batch accuracy)');
  // The quick preset has no KL term, so the start model was not run: the drift is said to be unmeasured.
  await expect(panel.getByTestId('slow-motion-metrics')).toContainText(/drift from the start model \(KL\)\s*not measured \(KL weight 0\)/);
  await expect(page.getByTestId('step-counter')).toHaveText('0');
  await checkAndShoot(page, 5, 'update');

  // 6. The new point: the panel shrinks below the three charts, which show it.
  await page.getByTestId('slow-motion-next').click();
  await expect(panel.getByTestId('slow-motion-done')).toHaveText('The curves have a new point at step 1.', { timeout: STAGE_TIMEOUT });
  expect(await currentStage(page)).toBe('New point');
  await expect(page.getByTestId('step-counter')).toHaveText('1');
  const strip = await box(panel);
  for (const id of HEADLINE_CHARTS) {
    const chart = await box(page.getByTestId(id));
    const inView = chart.x >= 0 && chart.y >= 0 && chart.x + chart.width <= PROJECTOR.width && chart.y + chart.height <= PROJECTOR.height;
    expect(inView, `${id} at y ${chart.y}, ${chart.height} px tall, is in the window`).toBe(true);
    const apart = chart.y + chart.height <= strip.y || strip.y + strip.height <= chart.y || chart.x + chart.width <= strip.x || strip.x + strip.width <= chart.x;
    expect(apart, `${id} (y ${chart.y}-${chart.y + chart.height}) is not under the panel (y ${strip.y}-${strip.y + strip.height})`).toBe(true);
  }
  const accuracyLegend = page.getByTestId('chart-accuracy').locator('.u-legend');
  await expect(accuracyLegend.locator('.u-series').first().locator('.u-value')).toHaveText('1');
  await expect(accuracyLegend.locator('.u-series').nth(1).locator('.u-value')).toHaveText(/^\d+(\.\d+)?$/);
  await checkAndShoot(page, 6, 'new-point');

  await page.getByTestId('slow-motion-close').click();
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('step-button')).toBeEnabled();
});

/** Which answer the panel shows in full by default: the first whose code ran (its calls cell says "ran"). */
async function firstAnswerWithOutput(panel: Locator): Promise<number> {
  const calls = await panel.getByTestId('slow-motion-answer').evaluateAll((rows) => rows.map((r) => r.children[2].textContent ?? ''));
  return Math.max(0, calls.findIndex((c) => /[1-9]\d* ran/.test(c)));
}

test('Finish runs the rest of a slow-motion step at once', async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto(`/?preset=quick&backend=wasm&seed=4#${GROUP_RUN}`);
  await expect(page.getByTestId('slow-motion-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('slow-motion-button').click();
  await expect(page.getByTestId('slow-motion-rollouts')).toBeVisible({ timeout: STAGE_TIMEOUT });
  await page.getByTestId('slow-motion-finish').click();
  await expect(page.getByTestId('slow-motion-done')).toHaveText('The curves have a new point at step 1.', { timeout: STAGE_TIMEOUT });
  await expect(page.getByTestId('step-counter')).toHaveText('1');
});
