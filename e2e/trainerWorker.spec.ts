/**
 * The trainer worker in Debian Chromium, on the built app's harness page: it picks a backend by
 * probing (or takes a forced one), reports BackendInfo, and runs RL steps of the Quick preset with
 * the Python sandbox in nested workers, while the page stays free of long tasks.
 *
 * TRAINER_E2E_STEPS (default 1) sets the steps per run; TRAINER_E2E_MEASURE=webgpu,wasm,cpu adds
 * one forced-backend run each, printing steps per minute (the figures quoted in the lab's notes).
 * Those runs keep every group (filterLow 0), so each step pays for a full update whatever the base
 * model's accuracy. TRAINER_E2E_TIMEOUT_S (default 600) bounds each test.
 */
import { expect, test, type Page } from '@playwright/test';
import type { TrainerRunReport, TrainerRunRequest } from './harness/trainer';
import type { BackendName } from '../src/trainerWorker/protocol';

const HARNESS = '/e2e/harness/trainer.html';
const STEPS = Number(process.env.TRAINER_E2E_STEPS ?? 1);
const MEASURE = (process.env.TRAINER_E2E_MEASURE ?? '').split(',').filter(Boolean) as BackendName[];
/** A Quick-preset step on the software WebGPU adapter takes minutes here. */
const RUN_TIMEOUT_MS = Number(process.env.TRAINER_E2E_TIMEOUT_S ?? 600) * 1000;

/** Console lines from the page and its workers, per page. */
const consoleLines = new WeakMap<Page, string[]>();

async function runHarness(page: Page, request: TrainerRunRequest): Promise<TrainerRunReport> {
  const lines: string[] = [];
  consoleLines.set(page, lines);
  page.on('console', (message) => {
    lines.push(message.text());
    // Errors, warnings and the harness's progress (so a run cut by the timeout still shows how far it got).
    if (message.type() !== 'log' && message.type() !== 'debug') console.log(`[browser ${message.type()}] ${message.text()}`);
  });
  await page.goto(HARNESS);
  await page.waitForFunction(() => 'trainerHarness' in window);
  const report = await page.evaluate((r) => window.trainerHarness.run(r), request);
  expect(report.failure, JSON.stringify({ statuses: report.statuses, errors: report.errors })).toBeNull();
  const info = report.info!;
  const seconds = report.metrics.at(-1)?.seconds;
  const line =
    `${request.backend} -> ${info.name}: init ${Math.round(report.initMs)} ms, startRun ${Math.round(report.startRunMs)} ms, ` +
    `steps ${report.stepMs.map((ms) => Math.round(ms)).join('/')} ms = ${report.stepsPerMinute.toFixed(2)} steps/min` +
    ` (last: ${report.metrics.at(-1)?.responseLength?.toFixed(0)} tokens/response` +
    (seconds ? `, generate ${seconds.generate.toFixed(2)} s, execute ${seconds.execute.toFixed(2)} s, update ${seconds.update.toFixed(2)} s` : '') +
    `; page long tasks ${report.longTasks})`;
  console.log(line);
  console.log(`  reason: ${info.reason}`);
  test.info().annotations.push({ type: 'speed', description: line });
  return report;
}

function expectStepsRan(report: TrainerRunReport): void {
  expect(report.errors).toEqual([]);
  expect(report.metrics.map((m) => m.step)).toEqual(Array.from({ length: STEPS + 1 }, (_, i) => i));
  expect(report.metrics[0].testAccuracy).not.toBeNull();
  expect(report.metrics[STEPS].accuracy).not.toBeNull();
  expect(report.lastSamples.length).toBeGreaterThan(0);
  expect(report.statuses.at(-1)).toMatch(new RegExp(`^(paused|finished)@${STEPS}$`));
  // tfjs and Python run in workers: the page's main thread has no long task while training.
  expect(report.longTasks).toBe(0);
}

test.describe('trainer worker', () => {
  test.setTimeout(RUN_TIMEOUT_MS);

  test('auto: probes every backend, picks the fastest that works, and trains', async ({ page }) => {
    const report = await runHarness(page, { backend: 'auto', preset: 'quick', steps: STEPS });
    const info = report.info!;
    expect(['webgpu', 'webgl', 'wasm', 'cpu']).toContain(info.name);
    expect(Object.keys(info.probeMs).sort()).toEqual(['cpu', 'wasm', 'webgl', 'webgpu']);
    const measured = Object.values(info.probeMs).filter((ms): ms is number => typeof ms === 'number');
    expect(info.probeMs[info.name]).toBe(Math.min(...measured));
    // Launched with --enable-unsafe-webgpu, this Chromium has an adapter (SwiftShader here).
    expect(info.adapter).not.toBeNull();
    expect(info.reason).toContain(`${info.name}: fastest in the probe`);
    expectStepsRan(report);
    // The worker's Python pool (nested workers) loaded Pyodide in the background.
    await expect.poll(() => consoleLines.get(page), { timeout: 60_000 }).toContain('Python sandbox ready: 2 interpreters + 1 standby');
  });

  test('forced webgpu: skips the probe, names the adapter, and trains', async ({ page }) => {
    // Short answers and a small batch: the software adapter took 1.8 min for the Quick preset's
    // 432-token answers; what this checks is the path, and the measure runs below keep the preset.
    // Every group kept (filterLow 0), so the update runs on WebGPU whatever the answers scored (at
    // 24 tokens none is right, so its gradient is 0: fusedKernels.spec checks the gradients' values).
    const overrides = { promptsPerStep: 2, groupSize: 2, minibatchSize: 4, maxResponseTokens: 24, filterLow: 0 };
    const report = await runHarness(page, { backend: 'webgpu', preset: 'quick', steps: STEPS, overrides });
    // A gradient norm is logged only by a step whose update ran.
    expect(report.metrics.at(-1)?.gradNorm).not.toBeNull();
    expect(report.info).toMatchObject({ name: 'webgpu', probeMs: {} });
    expect(report.info?.adapter?.vendor).toBeTruthy();
    expect(report.info?.reason).toContain('webgpu chosen by override (not probed)');
    expectStepsRan(report);
  });

  test('a missing base model is refused with a clear message', async ({ page }) => {
    await page.goto(HARNESS);
    await page.waitForFunction(() => 'trainerHarness' in window);
    const result = await page.evaluate(() => window.trainerHarness.initOnly('wasm', '/models/none/model.json'));
    // vite preview answers a missing file with index.html (200), which the fetch must not take for a checkpoint.
    expect(result).toEqual({
      info: null,
      error: 'could not fetch /models/none/model.json: the server sent an HTML page, so there is no checkpoint file there',
    });
  });

  test('pretrains a fresh base model in the worker with loss and progress events', async ({ page }) => {
    await page.goto(HARNESS);
    await page.waitForFunction(() => 'trainerHarness' in window);
    const result = await page.evaluate(() => window.trainerHarness.pretrain('wasm', 3));
    expect(result.losses).toHaveLength(3);
    for (const loss of result.losses) expect(loss).toBeGreaterThan(0);
    expect(result.progress.map((p) => [p.done, p.total])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(result.progress[3].etaSeconds).toBe(0);
    expect(result.meta).toMatchObject({ kind: 'base', stepsCompleted: 3 });
    expect(result.weightBytes).toBeGreaterThan(0);
  });

  for (const backend of MEASURE) {
    test(`measure: steps per minute on ${backend}`, async ({ page }) => {
      const report = await runHarness(page, { backend, preset: 'quick', steps: STEPS, overrides: { filterLow: 0 } });
      expect(report.info?.name).toBe(backend);
      expectStepsRan(report);
    });
  }
});
