/**
 * The Chromium half of the sandbox benchmark: serves the built app (dist/, run `npm run build`
 * first) with `vite preview`, opens the sandbox harness in Debian Chromium and runs the shared
 * benchmark (src/core/sandbox/benchmark.ts) inside the page, over worker interpreters, so no
 * Playwright round trip is counted. Run directly, it prints one JSON object on stdout:
 *
 *   npm run --silent bench:sandbox:browser [-- --cold-starts 3 --standby-restarts 3 --warm-calls 500 --throughput-calls 400]
 *
 * benchSandboxInChromium() is exported for a combined report (bench:sandbox).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { chromiumLaunchOptions } from '../../e2e/chromium';
import type { ChromiumBenchReport } from '../../e2e/harness/sandbox';
import type { SandboxBenchOptions } from '../core/sandbox/benchmark';

const HARNESS_PATH = 'e2e/harness/sandbox.html';

type CountOption = Exclude<keyof SandboxBenchOptions, 'poolSizes'>;
const FLAGS: Record<string, CountOption> = {
  '--cold-starts': 'coldStarts',
  '--standby-restarts': 'standbyRestarts',
  '--warm-calls': 'warmCalls',
  '--throughput-calls': 'throughputCalls',
};
const USAGE = `usage: npm run --silent bench:sandbox:browser [-- ${Object.keys(FLAGS).map((flag) => `[${flag} N]`).join(' ')}]`;

export async function benchSandboxInChromium(options: Partial<SandboxBenchOptions> = {}): Promise<ChromiumBenchReport> {
  if (!existsSync(`dist/${HARNESS_PATH}`)) throw new Error(`dist/${HARNESS_PATH} is missing: run \`npm run build\` first`);
  const server = await preview({ preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' });
  try {
    const browser = await chromium.launch(chromiumLaunchOptions());
    try {
      const page = await browser.newPage();
      await page.goto(new URL(HARNESS_PATH, server.resolvedUrls?.local[0]).href);
      await page.waitForFunction(() => 'sandboxHarness' in window);
      return await page.evaluate((settings) => window.sandboxHarness.bench(settings), options);
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
}

function parseArgs(argv: string[]): Partial<SandboxBenchOptions> {
  const options: Partial<Pick<SandboxBenchOptions, CountOption>> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = FLAGS[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < 1) throw new Error(`bad argument ${argv[i]}`);
    options[key] = value;
  }
  return options;
}

async function main(): Promise<number> {
  let options: Partial<SandboxBenchOptions>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`bench:sandbox:browser: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    console.log(JSON.stringify({ chromium: await benchSandboxInChromium(options) }, null, 2));
    return 0;
  } catch (error) {
    console.error(`bench:sandbox:browser: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main();
