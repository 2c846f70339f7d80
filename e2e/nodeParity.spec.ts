/**
 * Every figure in the lab can be reproduced from the command line: the same preset, seed and knobs,
 * trained in the lab on wasm and by `npm run train` in Node, give the same metrics at every step,
 * held-out accuracy included (all but the timing fields), the lab's updates shared with a gradient
 * helper worker and the command line's on one thread. Measured once at full size: the
 * classroom preset at seed 1 matched field for field over 52 steps. And a run travels between them
 * as the lab's run file (`npm run runfile`): the lab's export continues on the command line as the
 * command line's own run does, and a command-line run, packed, opens in the lab with its curves.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';

const run = promisify(execFile);

/** Depend on the machine, not on the run. */
const TIMING_FIELDS = ['seconds', 'tokensPerSecond'];

type Metrics = Record<string, unknown>;
const withoutTiming = (metrics: Metrics[]) => metrics.map((m) => Object.fromEntries(Object.entries(m).filter(([key]) => !TIMING_FIELDS.includes(key))));

test.describe.configure({ timeout: 420_000 });

const TSX = 'node_modules/.bin/tsx';
const metricsIn = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Metrics);

test('the lab on wasm and npm run train give the same metrics for the same preset, seed and knobs, and a run travels between them', async ({ page }, testInfo) => {
  const root = mkdtempSync(join(tmpdir(), 'node-parity-'));
  const out = join(root, 'cli');
  try {
    // One thread on the command line; the lab's trainer shares its updates with gradient helper workers
    // (browser/gradientWorkers.ts) wherever the machine has a core for one: the figures must not differ.
    // These 3 steps hand a helper 16 chunks on 2 cores (`--update-threads 2` says so on the command line).
    await run(TSX, ['src/cli/train.ts', '--preset', 'quick', '--seed', '2', '--steps', '3', '--test-every', '3', '--update-threads', '1', '--out', out, '--force'], { timeout: 240_000 });
    const cli = metricsIn(out);
    expect(cli.map((m) => m.step)).toEqual([0, 1, 2, 3]);

    await page.goto('/?preset=quick&backend=wasm&seed=2&autostart=1#steps=3&testEvery=3');
    await expect(page.getByTestId('backend-name')).toHaveText('WASM', { timeout: 60_000 });
    if ((await page.evaluate(() => navigator.hardwareConcurrency)) >= 2) {
      await expect(page.getByTestId('backend-reason')).toContainText(/the update shares its work with \d gradient helper workers?/);
    }
    await expect(page.getByTestId('run-status')).toHaveText('finished', { timeout: 240_000 });
    const download = page.waitForEvent('download');
    await page.getByTestId('export-run-button').click();
    const labFile = (await (await download).path())!;
    const lab = JSON.parse(readFileSync(labFile, 'utf8')).metrics as Metrics[];

    expect(lab[3].testAccuracy).not.toBeNull();
    expect(withoutTiming(lab)).toEqual(withoutTiming(cli));

    // The lab's run file, unpacked, goes on for a step on the command line as the CLI's own run does.
    const fromLab = join(root, 'from-lab');
    await run(TSX, ['src/cli/runFile.ts', 'unpack', labFile, '--out', fromLab]);
    for (const dir of [fromLab, out]) await run(TSX, ['src/cli/train.ts', '--resume', dir, '--steps', '4'], { timeout: 120_000 });
    const continued = withoutTiming(metricsIn(fromLab));
    expect(continued.map((m) => m.step)).toEqual([0, 1, 2, 3, 4]);
    expect(continued).toEqual(withoutTiming(metricsIn(out)));

    // The command line's run, packed, opens in the lab with its curves to step 4.
    const packed = testInfo.outputPath('cli-run.json');
    await run(TSX, ['src/cli/runFile.ts', 'pack', out, '--out', packed, '--name', 'from the command line']);
    await page.getByTestId('import-input').setInputFiles(packed);
    await expect(page.getByTestId('run-name').filter({ hasText: 'from the command line' })).toHaveCount(1);
    await expect(page.getByTestId('step-counter')).toHaveText('4');
    await expect(page.getByTestId('run-list')).toContainText('saved @4');
    const reexport = page.waitForEvent('download');
    await page.getByTestId('export-run-button').click();
    const shown = JSON.parse(readFileSync((await (await reexport).path())!, 'utf8')).metrics as Metrics[];
    expect(shown).toEqual(metricsIn(out));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
