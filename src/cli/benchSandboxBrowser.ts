/**
 * The Chromium half of the sandbox benchmark: serves the built app (dist/, run `npm run build`
 * first) with `vite preview`, opens the sandbox harness in Debian Chromium and prints the page's
 * measurements as one JSON object on stdout.
 *
 *   npm run --silent bench:sandbox:browser [-- --warm-calls 500 --throughput-calls 400]
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { chromiumLaunchOptions } from '../../e2e/chromium';
import type { BrowserBenchOptions, BrowserBenchReport } from '../../e2e/harness/sandboxBench';

const HARNESS_PATH = 'e2e/harness/sandbox.html';
type CountOption = Exclude<keyof BrowserBenchOptions, 'poolSizes'>;
const FLAGS: Record<string, CountOption> = {
  '--cold-starts': 'coldStarts',
  '--standby-restarts': 'standbyRestarts',
  '--warm-calls': 'warmCalls',
  '--throughput-calls': 'throughputCalls',
};

function parseArgs(argv: string[]): Partial<BrowserBenchOptions> {
  const options: Partial<Pick<BrowserBenchOptions, CountOption>> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = FLAGS[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < 1) {
      throw new Error(`usage: benchSandboxBrowser [${Object.keys(FLAGS).map((flag) => `${flag} N`).join('] [')}]`);
    }
    options[key] = value;
  }
  return options;
}

async function main(): Promise<void> {
  let options: Partial<BrowserBenchOptions>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(String((error as Error).message));
    process.exit(2);
  }
  if (!existsSync(`dist/${HARNESS_PATH}`)) {
    console.error(`dist/${HARNESS_PATH} is missing: run \`npm run build\` first`);
    process.exit(2);
  }
  const server = await preview({ preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' });
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const origin = server.resolvedUrls?.local[0] ?? '';
    const page = await browser.newPage();
    await page.goto(new URL(HARNESS_PATH, origin).href);
    await page.waitForFunction(() => 'sandboxHarness' in window);
    const report: BrowserBenchReport = await page.evaluate((settings) => window.sandboxHarness.bench(settings), options);
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
