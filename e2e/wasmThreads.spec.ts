/**
 * Threaded + SIMD wasm in the BUILT (minified) app: in a module worker built like the trainer
 * worker, the wasm backend starts its thread pool (tfjs's own start hangs there: every thread
 * worker threw `ReferenceError: e is not defined`), computes what the cpu backend computes, and
 * trains. Without cross-origin isolation it runs the single-threaded SIMD build and says why, and
 * the trainer worker's backend reason names the build it runs.
 *
 * WASM_THREADS_MEASURE=1 adds a run that times the quick preset's token step and update at 1 and
 * 2 threads (alternating, 3 rounds each), printing the figures quoted in docs/hosting.md.
 */
import { expect, test, type Page } from '@playwright/test';
import type { WasmThreadsHarness } from './harness/wasmThreads';

const HARNESS = '/e2e/harness/wasmThreads.html';

/** Console lines from the page and its workers (a thread worker's uncaught error shows here). */
async function openHarness(page: Page): Promise<string[]> {
  const lines: string[] = [];
  page.on('console', (message) => lines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => lines.push(`pageerror: ${error.message}`));
  await page.goto(HARNESS);
  await page.waitForFunction(() => 'wasmThreadsHarness' in window);
  return lines;
}

type CheckReport = Awaited<ReturnType<WasmThreadsHarness['check']>>;

function expectSameResultsAsCpu({ result }: CheckReport): void {
  expect(result.matMul.small).toEqual([19, 22, 43, 50]);
  // float32 sums of 256 products of N(0,1) entries: wasm and cpu differ in the last bits only.
  expect(result.matMul.maxAbs).toBeGreaterThan(10);
  expect(result.matMul.maxAbsDiff).toBeLessThan(1e-5 * result.matMul.maxAbs);
  const [first, ...rest] = result.train.wasmLosses;
  // A fresh model is near uniform over the 99 tokens: loss ~ ln 99 = 4.595.
  expect(Math.abs(first - Math.log(99))).toBeLessThan(0.1);
  expect(Math.abs(first - result.train.cpuFirstLoss)).toBeLessThan(1e-4);
  // Adam on one fixed batch: every step lowers its loss.
  for (const [i, loss] of rest.entries()) expect(loss).toBeLessThan(i === 0 ? first : rest[i - 1]);
  expect(result.train.tensorsAfter).toBe(result.train.tensorsBefore);
}

test.describe('wasm threads in the built app', () => {
  test.setTimeout(180_000);

  test('a module worker runs the threaded SIMD build on 2 threads, matching cpu, and trains', async ({ page }) => {
    const lines = await openHarness(page);
    const report = await page.evaluate(() => window.wasmThreadsHarness.check(2, 3));
    console.log(`threaded start ${report.start.startMs} ms; ${report.start.note}; losses ${report.result.train.wasmLosses.map((l) => l.toFixed(4)).join(' ')}`);
    expect(report.start.crossOriginIsolated).toBe(true);
    expect(report.start.backend).toBe('wasm');
    expect(report.start.threads).toBe(2);
    expect(report.start.note).toBe('wasm runs the threaded SIMD build on 2 threads (asked for)');
    expectSameResultsAsCpu(report);
    expect(lines.filter((line) => /is not defined|error/i.test(line))).toEqual([]);
  });

  test('without cross-origin isolation it runs the single-threaded SIMD build and says why', async ({ page }) => {
    // The page's own response without COOP/COEP: neither it nor its workers are isolated.
    await page.route(`**${HARNESS}`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['cross-origin-opener-policy'];
      delete headers['cross-origin-embedder-policy'];
      await route.fulfill({ response, headers });
    });
    await openHarness(page);
    const report = await page.evaluate(() => window.wasmThreadsHarness.check(2, 2));
    expect(report.start.crossOriginIsolated).toBe(false);
    expect(report.start.threads).toBe(1);
    expect(report.start.note).toBe(
      'wasm runs the single-threaded SIMD build: the page is not cross-origin isolated (no SharedArrayBuffer; see docs/hosting.md)',
    );
    expectSameResultsAsCpu(report);
  });

  test("the trainer worker's backend reason names the wasm build it runs, and the gradient helper workers the cores it leaves give it", async ({ page }) => {
    await page.goto('/e2e/harness/trainer.html');
    await page.waitForFunction(() => 'trainerHarness' in window);
    const { info, error } = await page.evaluate(() => window.trainerHarness.initOnly('wasm'));
    expect(error).toBeNull();
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const threads = Math.max(1, Math.min(4, Math.floor(cores / 2)));
    const why = `half of ${cores} logical cores, at most 4: the rest run the Python workers and the page`;
    const build =
      threads === 1
        ? `wasm runs the single-threaded SIMD build: 1 thread (${why})`
        : `wasm runs the threaded SIMD build on ${threads} threads (${why})`;
    // browser/gradientWorkers.ts: the cores the trainer's own threads leave, at most 3.
    const helpers = Math.max(0, Math.min(3, cores - threads));
    const shared = helpers === 0 ? '' : `; the update shares its work with ${helpers} gradient helper worker${helpers === 1 ? '' : 's'}`;
    expect(info!.reason).toBe(`wasm chosen by override (not probed); ${build}${shared}`);
  });

  test('measure: quick-preset token step and update at 1 and 2 threads', async ({ page }) => {
    test.skip(!process.env.WASM_THREADS_MEASURE, 'set WASM_THREADS_MEASURE=1 to measure');
    test.setTimeout(900_000);
    await openHarness(page);
    for (let round = 0; round < 3; round++) {
      for (const threads of [1, 2]) {
        const { start, result } = await page.evaluate((t) => window.wasmThreadsHarness.time(t, 3), threads);
        const line = `threads ${start.threads}: token step (batch ${result.batch}) ${result.tokenStepMs} ms, update (${result.trainRows}x${result.trainWidth}) ${result.trainStepMs} ms`;
        console.log(line);
        test.info().annotations.push({ type: 'speed', description: line });
      }
    }
  });
});
