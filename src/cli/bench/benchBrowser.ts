/**
 * npm run --silent bench:browser -- [--json] [--short] [--backends webgpu,webgl,wasm,cpu]
 *   [--sizes BACKEND=full|medium|short,...] [--small-model] [--sandbox-pool SIZE,STANDBY] [--timeout-s N]
 *
 * The engine's benchmark (src/bench/benchmark.ts, as `npm run bench` runs it in Node) in Debian
 * Chromium, on each tfjs backend in turn: serves the e2e build (run `npm run build:e2e` first), opens
 * the harness page e2e/harness/bench.html once per backend, and prints ONE JSON object on stdout
 * (pretty, or one line with --json): { machine, browser, autoPick, backends: { <name>: report } }.
 * A backend that fails or runs past its timeout reports { error } and the others still run. Before
 * the backends, a page runs the lab's 'auto' backend choice, so `autoPick` says what the lab would
 * train on here and why. Progress goes to stderr.
 *
 * Sizes: full (the Node bench's) for every backend, or short with --short; --sizes sets them per
 * backend, for backends too slow here for the full sizes (the software WebGPU adapter, the cpu
 * backend). Each report says its sizes. --small-model swaps the shipped base model for a random
 * init of a one-layer, 16-wide model: the same code paths, for the CI test. The Python pool is the
 * lab worker's (2 interpreters + 1 warm standby) unless --sandbox-pool says otherwise.
 */
import { parseArgs } from 'node:util';
import type { ConsoleMessage, Page } from 'playwright-core';
import type { BackendBenchRequest, BackendBenchResult, BrowserFacts } from '../../../e2e/harness/bench';
import { FULL_SIZES, SHORT_SIZES, type BenchSizes } from '../../bench/benchmark';
import type { GPTConfig } from '../../core/model/config';
import { VOCAB_SIZE } from '../../core/tokenizer';
import type { BackendInfo, BackendName } from '../../trainerWorker/protocol';
import { watchMachine } from './benchSetup';
import { wholeNumberFlag } from '../cliArgs';
import { withHarnessBrowser, type HarnessBrowser } from './browserHarness';

const HARNESS_PATH = 'e2e/harness/bench.html';
const HARNESS_GLOBAL = 'benchHarness';
const ALL_BACKENDS: readonly BackendName[] = ['webgpu', 'webgl', 'wasm', 'cpu'];
/** Where the page fetches the shipped base model (public/models/base, served by the build). */
const BASE_MODEL_URL = '/models/base/model.json';
/** The lab worker's pool: two interpreters run a step's calls side by side, one waits warm. */
const LAB_SANDBOX_POOL = { size: 2, standby: 1 };
const DEFAULT_TIMEOUT_S = 900;
const MAX_TIMEOUT_S = 86_400;

/** Between short and full: a quarter of the classroom's step (4 prompts x 8), 32 sequences x 32 tokens generated. */
const MEDIUM_SIZES: BenchSizes = {
  batch: 32,
  newTokens: 32,
  sandboxCalls: 100,
  step: { promptsPerStep: 4, groupSize: 8, minibatchSize: 32 },
  stepRuns: 1,
  matmul: { seconds: 0.1, largeSide: 512 },
};
const SIZES = { full: FULL_SIZES, medium: MEDIUM_SIZES, short: SHORT_SIZES } as const;
type SizeName = keyof typeof SIZES;

/** The --small-model shape: what test/bench.test.ts uses, so SwiftShader gets through a step in seconds. */
const SMALL_MODEL: GPTConfig = { vocabSize: VOCAB_SIZE, contextLength: 128, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };
const SMALL_MODEL_SEED = 3;

const USAGE =
  `usage: npm run --silent bench:browser -- [--json] [--short] [--backends ${ALL_BACKENDS.join(',')}]\n` +
  `  [--sizes BACKEND=${Object.keys(SIZES).join('|')},...] [--small-model] [--sandbox-pool SIZE,STANDBY] [--timeout-s N]`;

const MAX_PAGE_PROBLEMS = 10;

/** A harness page's result, with the first line of each distinct error or warning its console showed (a WebGPU validation error, say). */
export type PageOutcome<T> = (T | { error: string }) & { pageProblems?: string[] };

export interface BrowserBenchOptions {
  backends: BackendName[];
  short: boolean;
  /** Sizes by backend; a backend not named here runs at short or full (as `short` says). */
  sizes: Partial<Record<BackendName, SizeName>>;
  smallModel: boolean;
  sandboxPool: BackendBenchRequest['sandboxPool'];
  /** Per backend: a run still going after this long is stopped and reported as an error. */
  timeoutSeconds: number;
}

export interface BrowserBenchReport {
  machine: { node: string; cpus: number; loadAverage1m: { before: number; after: number }; short: boolean; wallSeconds: number };
  browser: { version: string } & BrowserFacts;
  /** The lab's 'auto' choice on this browser, with its probe times and reason. */
  autoPick: PageOutcome<BackendInfo>;
  backends: Partial<Record<BackendName, PageOutcome<BackendBenchResult>>>;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Runs `work` on a fresh harness page; its failure, a crash or the timeout becomes `{ error }`.
 * Progress lines and console errors go to stderr as they come.
 */
async function onFreshPage<T extends object>(harness: HarnessBrowser, timeoutSeconds: number, work: (page: Page) => Promise<T>): Promise<PageOutcome<T>> {
  const problems = new Set<string>();
  const onConsole = (message: ConsoleMessage) => {
    const text = message.text();
    if (text.startsWith('bench:')) return log(text);
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const problem = `${message.type()}: ${text.split('\n')[0]}`;
    if (problems.size >= MAX_PAGE_PROBLEMS || problems.has(problem)) return;
    problems.add(problem);
    log(`bench: page ${problem}`);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let page: Page | null = null;
  let outcome: T | { error: string };
  try {
    page = await harness.open(HARNESS_PATH, HARNESS_GLOBAL, onConsole);
    const timeout = new Promise<{ error: string }>((resolve) => {
      timer = setTimeout(() => resolve({ error: `did not finish within ${timeoutSeconds} s` }), timeoutSeconds * 1000);
    });
    outcome = await Promise.race([work(page), timeout]);
  } catch (error) {
    outcome = { error: (error as Error).message.split('\n')[0] ?? String(error) };
  } finally {
    clearTimeout(timer);
    await page?.close().catch(() => undefined);
  }
  return problems.size > 0 ? { ...outcome, pageProblems: [...problems] } : outcome;
}

async function benchInChromium(options: BrowserBenchOptions): Promise<BrowserBenchReport> {
  const machineWatch = watchMachine();
  const started = performance.now();
  const model: BackendBenchRequest['model'] = options.smallModel ? { config: SMALL_MODEL, seed: SMALL_MODEL_SEED } : { url: BASE_MODEL_URL };
  return withHarnessBrowser(async (harness) => {
    log(`bench: Chromium ${harness.browser.version()}; the lab's auto backend choice`);
    const facts = await onFreshPage(harness, 60, (page) => page.evaluate(() => window.benchHarness.browserFacts()));
    if ('error' in facts) throw new Error(`the harness page failed: ${facts.error}`);
    const autoPick = await onFreshPage(harness, 120, (page) => page.evaluate(() => window.benchHarness.autoPick()));
    log(`bench: auto-pick: ${'error' in autoPick ? autoPick.error : autoPick.reason}`);
    const backends: BrowserBenchReport['backends'] = {};
    for (const backend of options.backends) {
      const sizeName = options.sizes[backend] ?? (options.short ? 'short' : 'full');
      log(`bench: ${backend}: ${sizeName} sizes`);
      const request: BackendBenchRequest = { backend, sizeName, sizes: SIZES[sizeName], model, sandboxPool: options.sandboxPool };
      const result = await onFreshPage(harness, options.timeoutSeconds, (page) => page.evaluate((r) => window.benchHarness.run(r), request));
      backends[backend] = result;
      log(`bench: ${backend}: ${'error' in result ? `FAILED: ${result.error}` : `done in ${result.wallSeconds} s`}`);
    }
    return {
      machine: {
        ...machineWatch.facts(),
        short: options.short,
        wallSeconds: Math.round((performance.now() - started) / 100) / 10,
      },
      browser: { version: harness.browser.version(), ...facts },
      autoPick,
      backends,
    };
  });
}

function parseOptions(argv: string[]): BrowserBenchOptions & { json: boolean } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      short: { type: 'boolean', default: false },
      backends: { type: 'string', default: ALL_BACKENDS.join(',') },
      sizes: { type: 'string', default: '' },
      'small-model': { type: 'boolean', default: false },
      'sandbox-pool': { type: 'string', default: `${LAB_SANDBOX_POOL.size},${LAB_SANDBOX_POOL.standby}` },
      'timeout-s': { type: 'string', default: String(DEFAULT_TIMEOUT_S) },
    },
  });
  const backends = values.backends.split(',').filter(Boolean) as BackendName[];
  const unknown = backends.filter((name) => !ALL_BACKENDS.includes(name));
  if (backends.length === 0 || unknown.length > 0) throw new Error(`--backends takes names from ${ALL_BACKENDS.join(',')}, got '${values.backends}'`);
  // Bounded: a timer past 2^31 - 1 ms fires at once, which stopped every backend at its start.
  const timeoutSeconds = wholeNumberFlag('timeout-s', values['timeout-s'], 1, MAX_TIMEOUT_S);
  const sizes: BrowserBenchOptions['sizes'] = {};
  for (const entry of values.sizes.split(',').filter(Boolean)) {
    const [backend, sizeName] = entry.split('=') as [BackendName, SizeName | undefined];
    // own properties only: `wasm=constructor` must not find Object's
    if (!ALL_BACKENDS.includes(backend) || !sizeName || !Object.hasOwn(SIZES, sizeName)) {
      throw new Error(`--sizes takes BACKEND=${Object.keys(SIZES).join('|')} pairs, got '${entry}'`);
    }
    sizes[backend] = sizeName;
  }
  // Decimal digits only: Number() also takes '0x2' and ' 1'.
  const pool = /^(\d{1,2}),(\d{1,2})$/.exec(values['sandbox-pool']);
  if (!pool || Number(pool[1]) < 1) throw new Error(`--sandbox-pool takes SIZE,STANDBY, whole numbers from 1 and from 0 up to 99 (e.g. 2,1), got '${values['sandbox-pool']}'`);
  const sandboxPool = { size: Number(pool[1]), standby: Number(pool[2]) };
  return { json: values.json, short: values.short, backends, sizes, smallModel: values['small-model'], sandboxPool, timeoutSeconds };
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`bench:browser: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const report = await benchInChromium(options);
    process.stdout.write(`${options.json ? JSON.stringify(report) : JSON.stringify(report, null, 2)}\n`);
    return 0;
  } catch (error) {
    log(`bench:browser: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
