/**
 * The Chromium half of the sandbox benchmark: serves the e2e build (dist/, run `npm run build:e2e`
 * first), opens the sandbox harness in Debian Chromium and runs the shared benchmark
 * (src/bench/sandboxBenchmark.ts) inside the page, over worker interpreters, so no Playwright
 * round trip is counted. Run directly, it prints one JSON object on stdout:
 *
 *   npm run --silent bench:sandbox:browser [-- --cold-starts 3 --standby-restarts 3 --warm-calls 500 --throughput-calls 400]
 *
 * benchSandboxInChromium() is exported for a combined report (bench:sandbox).
 */
import { pathToFileURL } from 'node:url';
import type { ChromiumBenchReport } from '../../../e2e/harness/sandbox';
import type { SandboxBenchOptions } from '../../bench/sandboxBenchmark';
import { withHarnessBrowser } from './browserHarness';
import { parseSandboxBenchFlags, sandboxBenchUsage } from './sandboxBenchFlags';

const HARNESS_PATH = 'e2e/harness/sandbox.html';
const USAGE = sandboxBenchUsage('bench:sandbox:browser');

export function benchSandboxInChromium(options: Partial<SandboxBenchOptions> = {}): Promise<ChromiumBenchReport> {
  return withHarnessBrowser(async (harness) => {
    const page = await harness.open(HARNESS_PATH, 'sandboxHarness');
    return page.evaluate((settings) => window.sandboxHarness.bench(settings), options);
  });
}

async function main(): Promise<number> {
  let options: Partial<SandboxBenchOptions>;
  try {
    options = parseSandboxBenchFlags(process.argv.slice(2));
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
