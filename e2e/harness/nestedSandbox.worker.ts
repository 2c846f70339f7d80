/**
 * The trainer runs the sandbox from inside its own worker (trainerWorker/trainer.worker.ts), so the
 * Python workers are nested. This worker does the same for the e2e suite: it opens a pool, runs
 * the codes it is sent in order, and posts back the results and whether it is crossOriginIsolated.
 */
import type { RunOptions, RunResult } from '../../src/core/sandbox/protocol';
import { createBrowserSandbox } from '../../src/browser/sandbox/createBrowserSandbox';

export interface NestedRequest {
  codes: string[];
  options: Partial<RunOptions>;
}

export interface NestedReply {
  crossOriginIsolated: boolean;
  results: RunResult[];
}

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = async ({ data }: MessageEvent<NestedRequest>) => {
  const sandbox = createBrowserSandbox({ pool: { size: 1, standby: 1 } });
  const results: RunResult[] = [];
  for (const code of data.codes) results.push(await sandbox.run(code, data.options));
  await sandbox.close();
  scope.postMessage({ crossOriginIsolated: scope.crossOriginIsolated, results } satisfies NestedReply);
};
