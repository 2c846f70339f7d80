/**
 * Inside a gradient thread: its own tfjs on the main thread's backend, computing the chunks it is
 * sent (core/rl/helperGradients.ts) and handing their buffers back, over comlink as the lab's
 * helper workers do (browser/gradientHelper.worker.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/umd/node-adapter';
import { gradientHelperApi } from '../../core/rl/helperGradients';
import { useNodeBackend, type NodeBackend } from '../tfBackend';

const started = useNodeBackend((workerData as { backend: NodeBackend }).backend);

Comlink.expose(gradientHelperApi(started, Comlink.transfer), nodeEndpoint(parentPort!));
