/**
 * How long the lab takes for a whole Nmax sweep with its evaluations, arms side by side against one
 * after another, in the built app on wasm. Skipped unless SWEEP_PACE=1 (a measurement, not a check:
 * the machine is shared). SWEEP_PACE_PRESET (default ablation) and SWEEP_PACE_STEPS (default the
 * preset's) choose the sweep; SWEEP_PACE_ROUNDS (default 1) alternates the two ways that many times;
 * SWEEP_PACE_CORES (default 4,2) lists the core counts the page reports, one sweep each.
 * One after another is the lab on a page that reports one logical core (navigator.hardwareConcurrency
 * shadowed before the app starts); the trainer workers still see the machine's cores. Prints one JSON
 * line per sweep and writes them to e2e/artifacts/sweep-pace.json.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { expect, test, type Page } from '@playwright/test';
import { sweepLanes } from '../src/ui/controller/sweepLanes';

const PRESET = process.env.SWEEP_PACE_PRESET ?? 'ablation';
const STEPS = process.env.SWEEP_PACE_STEPS;
const ROUNDS = Number(process.env.SWEEP_PACE_ROUNDS ?? '1');
const CORES = (process.env.SWEEP_PACE_CORES ?? '4,2').split(',').map(Number);

test.describe.configure({ timeout: 3 * 3600_000 });

async function timeSweep(page: Page, cores: number): Promise<Record<string, unknown>> {
  await page.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), cores);
  const load = loadavg()[0];
  await page.goto(`/?preset=${PRESET}&seed=1&backend=wasm${STEPS ? `#steps=${STEPS}` : ''}`);
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 120_000 });
  await page.getByTestId('tab-sweep').click();
  const panel = page.getByTestId('sweep-panel');
  const started = Date.now();
  await page.getByTestId('train-button').click();
  const arms = PRESET === 'ablation' ? 5 : 4;
  await expect(panel.getByTestId('sweep-progress')).toContainText(`Sweep ${arms}/${arms}`, { timeout: 3 * 3600_000 });
  const seconds = (Date.now() - started) / 1000;
  const cells = await panel.getByTestId('sweep-matrix').locator('tbody td').allTextContents();
  return { preset: PRESET, steps: STEPS ?? 'preset', pageCores: cores, lanes: sweepLanes(cores, arms), seconds: Math.round(seconds), loadAverage1m: { before: load, after: loadavg()[0] }, matrix: cells };
}

test('the lab’s sweep: arms side by side against one after another', async ({ browser }) => {
  test.skip(!process.env.SWEEP_PACE, 'set SWEEP_PACE=1 to measure');
  const results: Record<string, unknown>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const cores of CORES) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const result = await timeSweep(page, cores);
      console.log(JSON.stringify(result));
      results.push(result);
      await context.close();
    }
  }
  writeFileSync('e2e/artifacts/sweep-pace.json', `${results.map((r) => JSON.stringify(r)).join('\n')}\n`);
});
