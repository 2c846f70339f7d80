/**
 * A gradient helper of the trainer worker (gradientWorkers.ts): its own tfjs on the
 * single-threaded wasm build with the lab's kernels, computing the chunks it is sent
 * (core/rl/helperGradients.ts) and handing their buffers back.
 */
import * as Comlink from 'comlink';
import * as tf from '@tensorflow/tfjs-core';
import { registerWasmBackend } from './tf/registerWasmBackend';
import { prepareWasmKernels } from '../core/model/wasmKernels';
import { gradientHelperApi } from '../core/rl/helperGradients';

registerWasmBackend({ wasmThreads: 1 });

const started = (async () => {
  if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not start');
  await tf.ready();
  await prepareWasmKernels();
})();

Comlink.expose(gradientHelperApi(started, Comlink.transfer));
