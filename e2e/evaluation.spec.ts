/**
 * The evaluation panel and the ReTool start in the built lab (Debian Chromium, the real trainer
 * worker and sandbox): pass@1 of the loaded run at k 1 and Nmax 0,1 with bad settings refused at
 * their fields, progress, the table, the JSON download in the CLI's shape and the result after a
 * reload; the same on forced WebGPU for a start model (top-p on the device, no synchronous read);
 * a one-step run from the cold-start model, whose link carries the start and whose inspector
 * shows ReTool's tags. Screenshots go to e2e/artifacts/.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';

const ARTIFACTS = 'e2e/artifacts';
/** One step of 2 prompts x 2 short answers. */
const ONE_STEP = 'steps=1&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
/** Startup (backend probe, base model, Pyodide), the step-0 test and a step, or an evaluation, on two shared cores. */
const WORK_TIMEOUT = 180_000;
// The 464 problems of the five-kind world took about 3 min on a software WebGPU adapter here on
// their own; the chains make 592 (issue 22), and the base's answers may run to the classroom's
// 400-token cap, so the limits grew with them. The test's 600 s limit still bounds it.
const WEBGPU_EVAL_TIMEOUT = 540_000;
const REPORT_KEYS = ['blocks', 'checkpoint', 'format', 'k', 'maxOutputChars', 'maxResponseTokens', 'problemDepths', 'problems', 'seed', 'temperature', 'topP', 'wallSeconds'];
const COLUMNS = [
  'Nmax', 'pass@1', '± s.e.', 'gain', '± s.e. of gain', 'easy', 'medium', 'hard', 'arithmetic', 'compose', 'search', 'error-prone', 'multi-step', 'chain', 'answers with code', 'code lines',
  'calls that ran', 'last call ran', 'first call at', 'calls per answer', 'right with one call', 'self-corrections', 'answers self-correcting',
];

test.describe.configure({ mode: 'serial', timeout: 600_000 });

async function expectNoErrorNotice(page: Page): Promise<void> {
  const errors = page.locator('.notice-error');
  if ((await errors.count()) > 0) throw new Error(`the lab shows an error: ${await errors.allTextContents()}`);
}

test('pass@1 of the loaded run: fields checked, progress, a row per Nmax, the CLI JSON, kept after a reload', async ({ page }) => {
  await page.goto(`/?preset=quick&seed=3#${ONE_STEP}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: WORK_TIMEOUT });

  await page.getByTestId('tab-evaluation').click();
  const panel = page.getByTestId('evaluation-panel');
  await expect(panel.getByTestId('evaluation-source')).toHaveValue(/^run:/);
  await expect(panel.getByTestId('evaluation-source').locator('option:checked')).toContainText('(now, step 1)');
  // ReTool's defaults, then bad values refused at their fields.
  await expect(panel.getByTestId('evaluation-nmax')).toHaveValue('0, 1, 2, 4');
  await expect(panel.getByTestId('evaluation-k')).toHaveValue('8');
  await expect(panel.getByTestId('evaluation-top-p')).toHaveValue('0.7');
  await panel.getByTestId('evaluation-nmax').fill('');
  await expect(panel.getByTestId('evaluation-nmax-error')).toHaveText('give at least one Nmax value');
  await panel.getByTestId('evaluation-k').fill('0');
  await expect(panel.getByTestId('evaluation-k-error')).toHaveText('k must be a whole number from 1 to 256');
  await panel.getByTestId('evaluation-top-p').fill('1.5');
  await expect(panel.getByTestId('evaluation-top-p-error')).toHaveText('top-p must be a number above 0 and at most 1');
  await expect(panel.getByTestId('evaluation-start')).toBeDisabled();
  await panel.getByTestId('evaluation-nmax').fill('0,1');
  await panel.getByTestId('evaluation-k').fill('1');
  await panel.getByTestId('evaluation-top-p').fill('0.7');
  await expect(panel.locator('.field-error')).toHaveCount(0);

  await panel.getByTestId('evaluation-start').click();
  await expect(panel.getByTestId('evaluation-start')).toBeDisabled();
  await expect(panel.getByTestId('evaluation-cancel')).toBeVisible();
  await expect(page.getByTestId('train-button')).toBeDisabled();
  // k 1: 64 problems a chunk, 10 chunks per Nmax of the 592, 20 in all.
  await expect(panel.getByTestId('evaluation-progress')).toContainText(/Evaluating \d+\/20/);
  const rows = panel.getByTestId('evaluation-row');
  await expect(rows).toHaveCount(2, { timeout: WORK_TIMEOUT });
  await expect(panel.getByTestId('evaluation-cancel')).toHaveCount(0);
  await expect(panel.getByTestId('evaluation-table').locator('thead th')).toHaveText(COLUMNS);
  await expect(rows.nth(0).locator('th')).toHaveText('0');
  await expect(rows.nth(1).locator('th')).toHaveText('1');
  await expect(rows.nth(1).locator('td').first()).toHaveText(/^[01]\.\d{3}$/);
  // Under it, pass@1, calls per answer and the single-call share at each of the 5 depths, a row per Nmax:
  // at Nmax 0 no call runs.
  await expect(panel.getByTestId('evaluation-depth-row')).toHaveCount(2);
  await expect(panel.getByTestId('evaluation-depth-row').nth(0).locator('td').first()).toHaveText(/^[01]\.\d{2}$/);
  await expect(panel.getByTestId('evaluation-depth-row').nth(0).locator('td').nth(5)).toHaveText('0.00');
  await expectNoErrorNotice(page);
  await panel.screenshot({ path: `${ARTIFACTS}/lab-evaluation.png` });

  const download = page.waitForEvent('download');
  await panel.getByTestId('evaluation-download').click();
  const report = JSON.parse(readFileSync((await (await download).path())!, 'utf8'));
  expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
  expect(report).toMatchObject({ format: 'zerotir', problems: 592, k: 1, temperature: 1, topP: 0.7, seed: 0, maxResponseTokens: 24 });
  expect(report.checkpoint).toMatch(/@ step 1$/);
  expect(report.blocks.map((b: { nmax: number; samples: number }) => [b.nmax, b.samples])).toEqual([[0, 592], [1, 592]]);
  // Nine bins (0 to 7 calls, then 8 or more); at Nmax 0 every answer made none.
  expect(report.blocks[0].callsHistogram).toEqual([report.problems, 0, 0, 0, 0, 0, 0, 0, 0]);
  // The gain over the row above, paired over problems: none for the first row; the difference of the two pass@1 for the second.
  await expect(rows.nth(0).locator('td').nth(2)).toHaveText('–');
  const [before, after]: number[][] = report.blocks.map((b: { perProblem: number[] }) => b.perProblem);
  const gain = after.map((x, i) => x - before[i]).reduce((sum, d) => sum + d, 0) / after.length;
  await expect(rows.nth(1).locator('td').nth(2)).toHaveText(gain.toFixed(3));
  await expect(rows.nth(1).locator('td').nth(3)).toHaveText(/^\d\.\d{3}$/);

  // The result is stored with the run.
  await page.reload();
  await expect(page.getByTestId('evaluation-panel').getByTestId('evaluation-row')).toHaveCount(2);
  await expect(page.getByTestId('evaluation-panel').getByTestId('evaluation-table').locator('caption')).toContainText('@ step 1 ·');
});

test('on forced WebGPU: pass@1 of the base model at Nmax 0 (top-p filtered on the device)', async ({ page }) => {
  await page.goto('/?preset=quick&backend=webgpu');
  await expect(page.getByTestId('backend-name')).toHaveText('WEBGPU', { timeout: 60_000 });
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('tab-evaluation').click();
  const panel = page.getByTestId('evaluation-panel');
  await panel.getByTestId('evaluation-source').selectOption('start:base');
  await panel.getByTestId('evaluation-nmax').fill('0');
  await panel.getByTestId('evaluation-k').fill('1');
  await panel.getByTestId('evaluation-start').click();
  await expect(panel.getByTestId('evaluation-row')).toHaveCount(1, { timeout: WEBGPU_EVAL_TIMEOUT });
  await expect(panel.getByTestId('evaluation-table').locator('caption')).toContainText('Base model (ZeroTIR): models/base @ step 0');
  await expectNoErrorNotice(page);
});

test('a run from the cold-start model: the start sets the format, the link keeps it, the inspector shows <code> tags', async ({ page }) => {
  // 160 tokens: a verbose cold-start answer (a plan first, as 36% of its traces) opens its first <code> within 138 of them.
  await page.goto(`/?preset=quick&seed=1&start=coldstart#${ONE_STEP.replace('maxResponseTokens=24', 'maxResponseTokens=160')}`);
  await expect(page.getByTestId('start-from-select')).toHaveValue('coldstart');
  await expect(page.getByTestId('start-from-note')).toContainText('fine-tuned on traces in <code> and <interpreter> tags, so the tool format is ReTool (<code>)');
  await expect(page.getByTestId('knob-format')).toHaveValue('retool');
  await expect.poll(() => new URL(page.url()).hash).toContain('start=coldstart');
  expect(new URL(page.url()).hash).toContain('format=retool');

  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: WORK_TIMEOUT });
  // Which kept answer opens a <code> block is the draw's: with the stage-10 cold start the first
  // one's verbose plan comes apart before it does (pass@1 0.43 at step 0), another's does not.
  await expect(page.getByTestId('rollout-sample').filter({ hasText: '<code>' }).first()).toBeVisible();
  await expectNoErrorNotice(page);
  await page.getByTestId('rollout-inspector').screenshot({ path: `${ARTIFACTS}/lab-coldstart-inspector.png` });

  // The format must fit the start: the base model with ReTool's tags is refused, with why.
  await page.getByTestId('start-from-select').selectOption('base');
  await expect(page.getByTestId('knob-format')).toHaveValue('zerotir');
  await page.locator('.more-knobs summary').click();
  await page.getByTestId('knob-format').selectOption('retool');
  await expect(page.getByTestId('start-from-error')).toHaveText(
    'tool format must be ZeroTIR (```python) for this start: the base model has only read ```python fences and ```output blocks',
  );
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('step-button').click();
  await expect(page.locator('.notice-error')).toContainText('tool format must be ZeroTIR');
  await expect(page.getByTestId('run-list').getByTestId('run-item')).toHaveCount(1);
});
