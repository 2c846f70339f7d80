/**
 * The one place that says how Chromium is launched, for the e2e suite (playwright.config.ts) and
 * the browser benchmark. The browser is Debian's chromium: nothing here may download one.
 */
import type { LaunchOptions } from '@playwright/test';

export function chromiumLaunchOptions(): LaunchOptions {
  return {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      // A real (SwiftShader) WebGPU adapter in headless mode; without it requestAdapter() is null.
      '--enable-unsafe-webgpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      // The tests run as root, where Chromium's own sandbox cannot start.
      '--no-sandbox',
    ],
  };
}

/** Where `vite preview` serves the built app for the suite and the benchmark (E2E_PORT: two checkouts at once). */
export const PREVIEW_ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? '4173'}`;
