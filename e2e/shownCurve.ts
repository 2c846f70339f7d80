/** The shown run's metric rows as its run file holds them (timings included), by the lab's own Export run. */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';

export type CurveRow = Record<string, unknown> & { step: number };

export async function shownCurve(page: Page): Promise<CurveRow[]> {
  const download = page.waitForEvent('download');
  await page.getByTestId('export-run-button').click();
  return JSON.parse(readFileSync((await (await download).path())!, 'utf8')).metrics;
}
