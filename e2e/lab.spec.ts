/**
 * The lab in Debian Chromium, on the built app with the real trainer worker and the shipped base
 * model: the page loads and names its backend; a tiny run trains on forced WebGPU (SwiftShader
 * here) and on the auto-picked backend; the step counter and the charts advance; the inspector
 * shows an executed python block with its sandbox output; the JSON export is valid; a reload keeps
 * the run; presenter mode hides the knobs. Screenshots go to e2e/artifacts/.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';

const ARTIFACTS = 'e2e/artifacts';
/**
 * A run small enough for a software GPU (SwiftShader here): 2 steps of 2 prompts x 2 short answers,
 * beside the step-0 held-out test of 160 problems.
 */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
/**
 * Enough answers that the base model's rare code blocks show up (RL amplifies a prior that is
 * there from the start): every answer of each 8 x 8 step goes to the inspector, sampled at
 * temperature 1, until one has executed code.
 */
const CODE_HUNT_RUN = 'steps=12&promptsPerStep=8&groupSize=8&minibatchSize=64&maxResponseTokens=96&samplesPerStep=64&temperature=1&testEvery=1000';
/** Startup (backend probe, base model, Pyodide, the step-0 test) plus training, on two shared cores. */
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ mode: 'serial', timeout: 360_000 });

/** A fingerprint (FNV-1a) of a chart's pixels, to tell whether it was redrawn with new data. */
function chartPixels(page: Page, testId: string): Promise<number> {
  return page
    .getByTestId(testId)
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const url = canvas.toDataURL();
      let hash = 0x811c9dc5;
      for (let i = 0; i < url.length; i++) hash = Math.imul(hash ^ url.charCodeAt(i), 0x01000193) >>> 0;
      return hash;
    });
}

async function expectNoErrorNotice(page: Page): Promise<void> {
  const errors = page.locator('.notice-error');
  if ((await errors.count()) > 0) throw new Error(`the lab shows an error: ${await errors.allTextContents()}`);
}

test('the page loads and the badge names a backend', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('train-button')).toBeVisible();
  const badge = page.getByTestId('backend-badge');
  await expect(badge.getByTestId('backend-name')).toHaveText(/^(WEBGPU|WEBGL|WASM|CPU)$/, { timeout: 60_000 });
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  // The default experiment (DESIGN.md): the classroom preset with Nmax 2.
  await expect(page.getByTestId('preset-select')).toHaveValue('classroom');
  await expect(page.getByTestId('nmax-input')).toHaveValue('2');
  await page.screenshot({ path: `${ARTIFACTS}/lab-loaded.png`, fullPage: true });
});

test('a tiny run trains on forced WebGPU; the step counter and the charts advance', async ({ page }) => {
  await page.goto(`/?preset=quick&backend=webgpu&seed=3#${TINY_RUN}`);
  const badge = page.getByTestId('backend-badge');
  await expect(badge.getByTestId('backend-name')).toHaveText('WEBGPU', { timeout: 60_000 });
  await expect(badge).toContainText('fallback adapter');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  const empty = await chartPixels(page, 'chart-accuracy');

  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('run-status')).toHaveText('paused');
  await expect.poll(() => chartPixels(page, 'chart-accuracy')).not.toBe(empty);
  const afterStep = await chartPixels(page, 'chart-accuracy');

  await page.getByTestId('train-button').click();
  await expect(page.getByTestId('step-counter')).toHaveText('2', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('run-status')).toHaveText('finished');
  await expect.poll(() => chartPixels(page, 'chart-accuracy')).not.toBe(afterStep);
  await expect(page.getByTestId('rollout-sample').first()).toBeVisible();
  await expectNoErrorNotice(page);
  await page.screenshot({ path: `${ARTIFACTS}/lab-webgpu-trained.png`, fullPage: true });
});

test('on the auto backend: trains until code runs, pauses, exports JSON, and a reload continues the run', async ({ page }) => {
  await page.goto(`/?preset=quick&seed=1&autostart=1#${CODE_HUNT_RUN}`);
  await expect(page.getByTestId('backend-name')).toHaveText(/^(WEBGPU|WEBGL|WASM|CPU)$/, { timeout: 60_000 });
  await expect(page.getByTestId('run-status')).toHaveText('training', { timeout: 60_000 });
  const usedCode = page.getByTestId('filter-code').locator('.chip-count');
  await expect.poll(async () => Number(await usedCode.textContent()), { timeout: TRAINING_TIMEOUT }).toBeGreaterThan(0);
  await page.getByTestId('pause-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('paused', { timeout: 60_000 });
  const pausedAt = Number(await page.getByTestId('step-counter').textContent());
  expect(pausedAt).toBeGreaterThan(0);
  await expectNoErrorNotice(page);

  // The inspector: an answer with an executed python block, and the sandbox's output marked as environment tokens.
  await page.getByTestId('filter-code').click();
  const sample = page.getByTestId('rollout-sample').first();
  await expect(sample).toContainText('```python');
  const output = sample.getByTestId('env-segment').first();
  await expect(output).toContainText('```output');
  await expect(output).toContainText('not trained on');
  await page.getByTestId('rollout-inspector').screenshot({ path: `${ARTIFACTS}/lab-inspector-code.png` });
  await page.screenshot({ path: `${ARTIFACTS}/lab-auto-trained.png`, fullPage: true });

  // Export: valid JSON with the config, the seed and one StepMetrics per recorded step.
  const download = page.waitForEvent('download');
  await page.getByTestId('export-run-button').click();
  const exported = JSON.parse(readFileSync((await (await download).path())!, 'utf8'));
  expect(exported.seed).toBe(1);
  expect(exported.config.steps).toBe(12);
  expect(exported.metrics.map((m: { step: number }) => m.step)).toEqual(Array.from({ length: pausedAt + 1 }, (_, i) => i));
  expect(exported.summary.steps).toBe(pausedAt);
  expect(exported.samples.length).toBeGreaterThan(0);

  // A reload lists the run where it stopped, and Step continues it from its checkpoint.
  const runs = page.getByTestId('run-list');
  await expect(runs).toContainText(`saved @${pausedAt}`);
  await page.reload();
  await expect(runs.getByTestId('run-item')).toHaveCount(1);
  await expect(runs).toContainText('paused');
  await expect(page.getByTestId('step-counter')).toHaveText(String(pausedAt));
  await expect(page.getByTestId('rollout-sample').first()).toBeVisible();
  await page.screenshot({ path: `${ARTIFACTS}/lab-after-reload.png`, fullPage: true });
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('step-counter')).toHaveText(String(pausedAt + 1), { timeout: TRAINING_TIMEOUT });
  await expect(runs.getByTestId('run-item')).toHaveCount(1);
  await expectNoErrorNotice(page);
});

test('an invalid knob is refused at its field and nothing trains', async ({ page }) => {
  await page.goto('/?preset=quick');
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  // Decimal only, as a link and the CLI read a number: "0x2" is not 2.
  await page.getByTestId('nmax-input').fill('0x2');
  await expect(page.getByTestId('nmax-input-error')).toBeVisible();
  await page.getByTestId('nmax-input').fill('99');
  await expect(page.getByTestId('nmax-input-error')).toHaveText('“Nmax (code calls)” must be between 0 and 16');
  // The refused value never reaches the URL (a shared link would carry it).
  await page.getByTestId('seed-input').fill('-1');
  await expect(page.getByTestId('seed-input-error')).toBeVisible();
  expect(new URL(page.url()).hash).not.toMatch(/(^|[#&])(nmax|seed)=/);
  await page.getByTestId('train-button').click();
  await expect(page.locator('.notice-error')).toContainText('“Nmax (code calls)” must be between 0 and 16');
  await expect(page.getByTestId('run-list').getByTestId('run-item')).toHaveCount(0);
  await expect(page.getByTestId('step-counter')).toHaveText('0');
});

test('the tier and kind mixes: each share is written to the URL, and a mix of zeros is refused under it', async ({ page }) => {
  await page.goto('/?preset=quick');
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.locator('.more-knobs summary').click();
  await page.getByTestId('knob-tier-hard').fill('2');
  await page.getByTestId('knob-kind-search').fill('0.5');
  await expect.poll(() => new URL(page.url()).hash).toContain('tierMix=0.25,0.25,2');
  await expect.poll(() => new URL(page.url()).hash).toContain('kindMix=0.35,0.15,0.5,0.05,0.15,0.25');
  for (const kind of ['arithmetic', 'compose', 'search', 'errorProne', 'multiStep', 'chain']) await page.getByTestId(`knob-kind-${kind}`).fill('0');
  await expect(page.locator('.tier-mix.field-invalid [role=alert]')).toHaveText('“Kinds of problem” needs non-negative arithmetic, compose, search, error-prone, multi-step, chain shares that are not all 0');
});

test('presenter mode hides the knobs and keeps Train, Step and Reset', async ({ page }) => {
  await page.goto('/?preset=classroom&presenter=1');
  await expect(page.getByTestId('train-button')).toBeVisible();
  await expect(page.getByTestId('step-button')).toBeVisible();
  await expect(page.getByTestId('reset-button')).toBeVisible();
  await expect(page.getByTestId('chart-accuracy')).toBeVisible();
  await expect(page.getByTestId('nmax-input')).toHaveCount(0);
  await expect(page.getByTestId('seed-input')).toHaveCount(0);
  await expect(page.getByTestId('preset-select')).toHaveCount(0);
  // The flag lives in the URL hash, so the link keeps presenting.
  expect(new URL(page.url()).hash).toContain('presenter=1');
  await page.screenshot({ path: `${ARTIFACTS}/lab-presenter.png`, fullPage: true });
});
