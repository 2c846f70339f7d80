/**
 * Harness page for e2e/gradientWorkers.spec.ts: the lab's gradient helper workers
 * (src/browser/gradientWorkers.ts), real nested workers with their own tfjs wasm backend, against the
 * page's own thread. Exposed as `window.gradientWorkersHarness` for page.evaluate.
 */
import * as tf from '@tensorflow/tfjs-core';
import { PRESETS } from '../../src/core/experiment';
import { GPT } from '../../src/core/model/gpt';
import { prepareWasmKernels } from '../../src/core/model/wasmKernels';
import type { GradientHelper } from '../../src/core/rl/gradientHelpers';
import { lengthChunks, minibatchGradients } from '../../src/core/rl/minibatchGradients';
import { VOCAB_SIZE } from '../../src/core/tokenizer';
import { startGradientWorkers } from '../../src/browser/gradientWorkers';
import { registerBrowserBackends } from '../../src/browser/tf/registerBrowserBackends';
import { trainingRows } from '../../test/trainingRows';

const MODEL = { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };
/** So small a chunk overhead that every row length is a chunk of its own: many chunks to share out. */
const MANY_CHUNKS = 1e-6;

async function startWasm(): Promise<void> {
  registerBrowserBackends({ wasmThreads: 1 });
  await tf.setBackend('wasm');
  await tf.ready();
  await prepareWasmKernels();
}

const flat = (grads: tf.NamedTensorMap) => Object.entries(grads).map(([name, g]) => [name, Array.from(g.dataSync())]);

/**
 * A minibatch's gradient and figures on the page's thread alone and shared with one helper worker;
 * then a call left waiting when the helpers close.
 */
async function compare(): Promise<{ same: boolean; chunks: number; onHelper: number; tensorsLeaked: number; closedCall: string }> {
  await startWasm();
  const model = GPT.init(MODEL, 4);
  const rows = trainingRows(24, 2);
  const config = { ...PRESETS.classroom, klCoef: 0 };
  const workers = await startGradientWorkers(1);
  let onHelper = 0;
  const counting: GradientHelper = {
    chunkGradients: (sent, chunks, knobs) => {
      onHelper += chunks.length;
      return workers.helpers[0].chunkGradients(sent, chunks, knobs);
    },
  };
  const before = tf.memory().numTensors;
  const alone = await minibatchGradients(model, rows, config, MANY_CHUNKS);
  const shared = await minibatchGradients(model, rows, config, MANY_CHUNKS, [counting]);
  const same =
    JSON.stringify(flat(alone.grads)) === JSON.stringify(flat(shared.grads)) &&
    JSON.stringify([alone.clipFraction, alone.approxKl, alone.valueLoss, alone.entropy]) === JSON.stringify([shared.clipFraction, shared.approxKl, shared.valueLoss, shared.entropy]);
  tf.dispose([...Object.values(alone.grads), ...Object.values(shared.grads)]);
  const tensorsLeaked = tf.memory().numTensors - before;
  const waiting = workers.helpers[0].chunkGradients({ config: MODEL, weights: Object.fromEntries(model.namedWeights().map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array])) }, [{ sequences: rows, share: 1 }], config);
  workers.close();
  const closedCall = await waiting.then(
    () => 'resolved',
    (error: Error) => error.message,
  );
  model.dispose();
  return { same, chunks: lengthChunks(rows, MANY_CHUNKS).length, onHelper, tensorsLeaked, closedCall };
}

const harness = { compare };
export type GradientWorkersHarness = typeof harness;

declare global {
  interface Window {
    gradientWorkersHarness: GradientWorkersHarness;
  }
}

window.gradientWorkersHarness = harness;
