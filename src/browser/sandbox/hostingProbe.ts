/**
 * Asks a Python worker how it finds itself served (hostingRequirements.ts), without loading
 * Pyodide: the lab's banner calls this at start.
 */
import type { HostingReport, ProbeMessage } from './workerMessages';
import { spawnPythonWorker } from './workerInterpreter';

/** Starts a Python worker only to ask how it is served; it answers before loading anything. */
export async function probeSandboxHosting(timeoutMs = 10_000): Promise<HostingReport> {
  const worker = spawnPythonWorker();
  try {
    return await new Promise<HostingReport>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the Python worker did not answer within ${timeoutMs} ms`)), timeoutMs);
      worker.onmessage = ({ data }: MessageEvent<HostingReport>) => {
        clearTimeout(timer);
        resolve(data);
      };
      worker.onerror = (event) => {
        clearTimeout(timer);
        reject(new Error(`the Python worker failed to start: ${event.message}`));
      };
      worker.postMessage({ type: 'probe' } satisfies ProbeMessage);
    });
  } finally {
    worker.terminate();
  }
}
