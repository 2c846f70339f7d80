/**
 * TIR Lab's own wasm kernels (kernels/tirKernels.ts, src/core/model/wasmKernels.ts): the committed
 * binary is the build of the committed source, and the training pass through them (tfjs wasm
 * backend) computes what the tfjs ops compute (the cpu backend runs those), forward and every
 * weight's gradient.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { describe, expect, it } from 'vitest';
import { countDispatches } from '../src/bench/dispatchCounter';
import { FUSED_KERNELS } from '../src/core/model/fusedOps';
import type { GPTConfig } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import { WASM_KERNELS_BASE64, WASM_KERNELS_SHARED_BASE64 } from '../src/core/model/wasmKernelBinary';
import { causalAttentionGradKernel, causalAttentionKernel, geluKernel, usesWasmKernels, WASM_KERNELS } from '../src/core/model/wasmKernels';
import { Random } from '../src/core/random';
import { randomTokens, randomWeights, useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

// Heads 16 wide (the kernels take multiples of 16) and weights large enough that attention is peaked
// and GELU's curve matters, so a wrong kernel cannot hide in near-uniform softmaxes.
const CONFIG: GPTConfig = { vocabSize: 11, contextLength: 40, nLayer: 2, nHead: 2, nEmbd: 32, mlpRatio: 2 };
/** One head 32 wide: the kernels go over a head in two blocks of 16. */
const WIDE_HEAD_CONFIG: GPTConfig = { ...CONFIG, nHead: 1 };

/** Logits and values of a forward, and the gradient of a fixed random projection of both, by weight. */
function forwardAndGradients(config: GPTConfig, backend: string, tokens: Int32Array, batch: number, length: number) {
  tf.setBackend(backend);
  const model = GPT.fromWeights(config, randomWeights(config, 3, 0.5));
  const rng = new Random(9);
  const logitWeights = Float32Array.from({ length: batch * length * CONFIG.vocabSize }, () => rng.normal());
  const valueWeights = Float32Array.from({ length: batch * length }, () => rng.normal());
  const result = tf.tidy(() => {
    const input = tf.tensor2d(tokens, [batch, length], 'int32');
    const loss = () => {
      const { logits, values } = model.forward(input);
      return tf.add(tf.sum(tf.mul(logits, tf.tensor(logitWeights, logits.shape))), tf.sum(tf.mul(values, tf.tensor(valueWeights, values.shape)))) as tf.Scalar;
    };
    const { value, grads } = tf.variableGrads(loss, model.trainableVariables());
    const { logits } = model.forward(input);
    return { loss: value.dataSync()[0], logits: logits.dataSync(), grads: model.namedWeights().map(({ name, tensor }) => ({ name, values: grads[tensor.name].dataSync() })) };
  });
  model.dispose();
  return result;
}

function largestRelativeDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let scale = 0;
  let largest = 0;
  for (let i = 0; i < a.length; i++) scale = Math.max(scale, Math.abs(b[i]));
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]) / scale);
  return largest;
}

describe('wasm kernels', () => {
  it('are the build of the committed source (npm run build:kernels)', async () => {
    // @ts-expect-error: a plain .mjs script without type declarations
    const { compileKernels, kernelModuleSource } = await import('../scripts/buildKernels.mjs');
    const committed = readFileSync(join(__dirname, '../src/core/model/wasmKernelBinary.ts'), 'utf8');
    expect(committed).toBe(kernelModuleSource(await compileKernels()));
  });

  it.each([
    ['16', CONFIG],
    ['32', WIDE_HEAD_CONFIG],
  ])('give the forward and every gradient of the tfjs ops, on rows of odd length (heads %s wide)', (_, config) => {
    const [batch, length] = [3, 37];
    const tokens = randomTokens(batch, length, config.vocabSize, 5);
    const reference = forwardAndGradients(config, 'cpu', tokens, batch, length);
    const kernels = forwardAndGradients(config, 'wasm', tokens, batch, length);
    expect(largestRelativeDifference(kernels.logits, reference.logits)).toBeLessThan(5e-5);
    expect(Math.abs(kernels.loss - reference.loss) / Math.abs(reference.loss)).toBeLessThan(1e-5);
    for (const [i, { name, values }] of kernels.grads.entries()) {
      expect(largestRelativeDifference(values, reference.grads[i].values), name).toBeLessThan(1e-4);
    }
  });

  it('run in the training pass on wasm instead of the tfjs attention and GELU ops', () => {
    const model = GPT.fromWeights(CONFIG, randomWeights(CONFIG, 3, 0.5));
    const counter = countDispatches();
    try {
      tf.tidy(() => {
        const input = tf.tensor2d(randomTokens(2, 9, CONFIG.vocabSize, 1), [2, 9], 'int32');
        tf.variableGrads(() => tf.sum(model.forward(input).logits) as tf.Scalar, model.trainableVariables());
      });
    } finally {
      counter.stop();
      model.dispose();
    }
    const byKernel = counter.counts().byKernel;
    for (const name of Object.values(WASM_KERNELS)) expect(byKernel[name], name).toBeGreaterThan(0);
    expect(byKernel.DepthwiseConv2dNative ?? 0).toBe(0);
    expect(byKernel.Softmax ?? 0).toBe(0);
    expect(byKernel.Sigmoid ?? 0).toBe(0);
  });

  it('decode through an in-place KV cache as the full forward computes, with a row dropped midway', () => {
    const model = GPT.fromWeights(CONFIG, randomWeights(CONFIG, 4, 0.5));
    const [batch, length] = [3, 21];
    const tokens = randomTokens(batch, length, CONFIG.vocabSize, 8);
    const counter = countDispatches();
    let largest = 0;
    try {
      const full = tf.tidy(() => model.forward(tf.tensor2d(tokens, [batch, length], 'int32')).logits.arraySync());
      const cache = model.newCache(batch);
      let rows = [0, 1, 2];
      for (let t = 0; t < length; t++) {
        if (t === 9) {
          cache.keepRows([0, 2]);
          rows = [0, 2];
        }
        const { logits, values } = model.step(cache, Int32Array.from(rows, (b) => tokens[b * length + t]));
        const stepped = logits.arraySync();
        tf.dispose([logits, values]);
        rows.forEach((b, i) => stepped[i].forEach((v, k) => (largest = Math.max(largest, Math.abs(v - full[b][t][k])))));
      }
      cache.dispose();
    } finally {
      counter.stop();
      model.dispose();
    }
    expect(largest).toBeLessThan(1e-4);
    const byKernel = counter.counts().byKernel;
    for (const name of [FUSED_KERNELS.writeHeads, FUSED_KERNELS.alibiAttention, FUSED_KERNELS.rmsNorm, FUSED_KERNELS.geluGate, FUSED_KERNELS.embedRows]) {
      expect(byKernel[name], name).toBeGreaterThan(0);
    }
    expect(byKernel.Concat ?? 0).toBe(0);
    // tfjs's gather copies element by element: the embedding lookup and keepRows have kernels of their own
    expect(byKernel.GatherV2 ?? 0).toBe(0);
    expect(byKernel[FUSED_KERNELS.gatherRows]).toBe(2 * CONFIG.nLayer);
  });

  it('make tf.clone share the data it copies, and keep it alive while either tensor lives', () => {
    expect(usesWasmKernels()).toBe(true);
    const original = tf.tensor1d([1, 2, 3]);
    const backend = tf.backend() as unknown as { dataIdMap: { get(id: object): { memoryOffset: number } } };
    const clone = tf.clone(original);
    expect(backend.dataIdMap.get(clone.dataId)!.memoryOffset).toBe(backend.dataIdMap.get(original.dataId)!.memoryOffset);
    original.dispose();
    const later = tf.tensor1d([7, 8, 9]);
    expect(Array.from(clone.dataSync())).toEqual([1, 2, 3]);
    tf.dispose([clone, later]);
  });

  it('attend causally: a query sees no later key, and the first query only its own value', () => {
    const [B, T, H, D] = [1, 5, 1, 16];
    const rng = new Random(2);
    const qkv = Float32Array.from({ length: B * T * 3 * H * D }, () => rng.normal());
    const changedLast = qkv.slice();
    for (let d = 0; d < 3 * D; d++) changedLast[(T - 1) * 3 * D + d] += 1;
    const [out, after, gradient] = tf.tidy(() => {
      const slopes = tf.tensor1d([0.5]);
      const attend = (values: Float32Array) => causalAttentionKernel(tf.tensor3d(values, [B, T, 3 * H * D]), slopes, H);
      const first = attend(qkv);
      const dOut = tf.tensor3d(Float32Array.from({ length: B * T * H * D }, () => rng.normal()), [B, T, H * D]);
      const dQkv = causalAttentionGradKernel(tf.tensor3d(qkv, [B, T, 3 * H * D]), slopes, first.out, first.rows, dOut);
      return [first.out.dataSync(), attend(changedLast).out.dataSync(), dQkv.dataSync()];
    });
    expect(Array.from(out.subarray(0, D))).toEqual(Array.from(qkv.subarray(2 * D, 3 * D)));
    expect(Array.from(after.subarray(0, (T - 1) * D))).toEqual(Array.from(out.subarray(0, (T - 1) * D)));
    expect(gradient.every(Number.isFinite)).toBe(true);
  });

  it('compute GELU and its exp to float precision, far into both tails, on a length that is no multiple of 4', () => {
    const x = Float32Array.from([-200, -30, -5, -1, -1e-3, 0, 1e-3, 0.5, 1, 3, 10, 200, 7]);
    const scale = 2 * Math.sqrt(2 / Math.PI);
    const y = tf.tidy(() => geluKernel(tf.tensor1d(x), scale, 0.044715).dataSync());
    x.forEach((v, i) => {
      const expected = v / (1 + Math.exp(-scale * (v + 0.044715 * v ** 3)));
      expect(Math.abs(y[i] - expected), `gelu(${v})`).toBeLessThanOrEqual(2e-7 * Math.max(1, Math.abs(expected)));
    });
  });

  it('own no memory: both builds import it and carry no data segment that would write over tfjs\'s heap', () => {
    for (const [base64, shared] of [[WASM_KERNELS_BASE64, false], [WASM_KERNELS_SHARED_BASE64, true]] as const) {
      const binary = Buffer.from(base64, 'base64');
      const module = new WebAssembly.Module(binary);
      expect(WebAssembly.Module.imports(module)).toEqual([{ module: 'env', name: 'memory', kind: 'memory' }]);
      expect(sectionIds(binary)).not.toContain(DATA_SECTION);
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared });
      expect(() => new WebAssembly.Instance(module, { env: { memory } })).not.toThrow();
    }
  });
});

const DATA_SECTION = 11;

/** The ids of a wasm binary's sections, in order (each: id byte, LEB128 size, body). */
function sectionIds(binary: Uint8Array): number[] {
  const ids: number[] = [];
  let at = 8;
  while (at < binary.length) {
    ids.push(binary[at++]);
    let size = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = binary[at++];
      size |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    at += size;
  }
  return ids;
}
