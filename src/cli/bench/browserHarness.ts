/**
 * What the browser CLIs share: serve the e2e build (dist/, run `npm run build:e2e` first: a plain
 * build has no harness pages) with `vite preview` on a free port, launch Debian Chromium with the suite's flags (e2e/chromium.ts),
 * and open harness pages in it. Each page gets its own browser context, so one page's GPU
 * contexts, workers or crash do not reach the next.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { preview } from 'vite';
import { chromiumLaunchOptions } from '../../../e2e/chromium';

export interface HarnessBrowser {
  browser: Browser;
  /**
   * Opens `path` (e.g. 'e2e/harness/bench.html') in a fresh context and waits until the page has set
   * `window[global]`. `onConsole` sees the page's console messages (its workers' too).
   */
  open(path: string, global: string, onConsole?: (message: ConsoleMessage) => void): Promise<Page>;
}

/** Runs `use` with the build served and Chromium up; both are closed afterwards, whatever happens. */
export async function withHarnessBrowser<T>(use: (harness: HarnessBrowser) => Promise<T>): Promise<T> {
  const server = await preview({ preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' });
  try {
    const origin = server.resolvedUrls?.local[0];
    if (!origin) throw new Error('vite preview did not say where it serves');
    const browser = await chromium.launch(chromiumLaunchOptions());
    try {
      return await use({
        browser,
        async open(path, global, onConsole) {
          if (!existsSync(`dist/${path}`)) throw new Error(`dist/${path} is missing: run \`npm run build:e2e\` first (a plain build has no harness pages)`);
          const context = await browser.newContext();
          const page = await context.newPage();
          page.on('close', () => void context.close().catch(() => undefined));
          if (onConsole) page.on('console', onConsole);
          await page.goto(new URL(path, origin).href);
          await page.waitForFunction((name) => name in window, global);
          return page;
        },
      });
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
}
