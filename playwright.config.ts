/**
 * e2e suite: Debian Chromium against the BUILT app with its harness pages, served by `vite preview`
 * (run `npm run build:e2e` first; `npm run e2e` does both). Launch flags live in e2e/chromium.ts.
 */
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions, PREVIEW_ORIGIN } from './e2e/chromium';
import { TOUR_SEEN_KEY } from './src/ui/tour/tourMemory';

const port = new URL(PREVIEW_ORIGIN).port;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  timeout: 90_000,
  // Two shared cores: one browser at a time keeps the timing assertions honest.
  workers: 1,
  reporter: 'list',
  use: {
    baseURL: PREVIEW_ORIGIN,
    browserName: 'chromium',
    launchOptions: chromiumLaunchOptions(),
    // Every spec visits as someone who has seen the first-visit tour, so its card covers nothing a
    // spec clicks or shoots; e2e/explore.spec.ts visits as a newcomer.
    storageState: { cookies: [], origins: [{ origin: PREVIEW_ORIGIN, localStorage: [{ name: TOUR_SEEN_KEY, value: '1' }] }] },
  },
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `${PREVIEW_ORIGIN}/e2e/harness/sandbox.html`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
