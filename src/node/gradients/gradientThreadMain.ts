/**
 * Inside a gradient thread: its own tfjs on the main thread's backend, computing each job's chunks
 * (core/rl/helperGradients.ts) and handing their buffers back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { helperChunkGradients, resultBuffers } from '../../core/rl/helperGradients';
import { useNodeBackend } from '../tfBackend';
import type { GradientJob, GradientReply, GradientThreadData } from './gradientMessages';

const { backend } = workerData as GradientThreadData;
const port = parentPort!;

await useNodeBackend(backend);
port.on('message', (job: GradientJob) => {
  let reply: GradientReply;
  try {
    reply = { id: job.id, results: helperChunkGradients(job.model, job.chunks, job.config) };
  } catch (error) {
    port.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies GradientReply);
    return;
  }
  port.postMessage(reply, resultBuffers(reply.results));
});
port.postMessage({ ready: true });
