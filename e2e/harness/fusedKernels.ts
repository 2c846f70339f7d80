/**
 * Harness page for e2e/fusedKernels.spec.ts: each fused WGSL kernel (src/browser/webgpu/) against
 * the plain tfjs ops it replaces, on webgpu and on cpu, from seeded random inputs; the sampling
 * kernel against the JS sampler; tfjs's Adam against the fused one; a KV-cache decode with the fused
 * kernels (preallocated cache, rows dropped midway) against the full forward; and the kernel calls
 * and GPU programs of a token step with and without them. Exposed as
 * `window.fusedKernelsHarness` for page.evaluate.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { WebGPUBackend } from '@tensorflow/tfjs-backend-webgpu';
import { countDispatches } from '../../src/bench/dispatchCounter';
import { alibiSlopes } from '../../src/core/model/weights';
import { BASE_MODEL_CONFIG, type GPTConfig } from '../../src/core/model/config';
import { alibiAttention, FUSED_KERNELS, geluGate, QKV_PART, rmsNorm, sampleRows, writeHeads } from '../../src/core/model/fusedOps';
import { applyGradients } from '../../src/core/optim/adamStep';
import { sampleFromLogits, sampleTokens } from '../../src/core/model/sampling';
import { GPT, weightSpecs } from '../../src/core/model/gpt';
import { Random } from '../../src/core/random';
import { clipByGlobalNorm } from '../../src/core/optim/gradClip';
import { registerFusedWebGpuKernels, unregisterFusedWebGpuKernels } from '../../src/browser/webgpu/fusedKernels';
import { registerBrowserBackends } from '../../src/browser/tf/registerBrowserBackends';

type Inputs = Record<string, tf.Tensor>;
type InputData = Record<string, { shape: number[]; values: Float32Array }>;

export interface KernelComparison {
  kernel: string;
  /** The shapes, e.g. "B=2 H=4 D=16 T=65". */
  label: string;
  outputShape: number[];
  /** Largest |fused - plain| with the plain ops on webgpu, and on cpu. */
  maxDiffWebgpu: number;
  maxDiffCpu: number;
}

interface KernelCase {
  kernel: string;
  label: string;
  inputs: InputData;
  fused: (t: Inputs) => tf.Tensor;
  plain: (t: Inputs) => tf.Tensor;
}

function normals(rng: Random, shape: number[], std: number): { shape: number[]; values: Float32Array } {
  const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < values.length; i++) values[i] = std * rng.normal();
  return { shape, values };
}

/** As decoding.ts's plain path: x * rsqrt(mean(x^2) + eps), here with tf.mean. */
const plainRmsNorm = (x: tf.Tensor, eps: number) => tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps)));
const plainGeluGate = (x: tf.Tensor, offset: number) => tf.mul(x, tf.sigmoid(tf.mul(x, tf.add(tf.square(x), offset))));

/** The cache with position `position` replaced by this position's heads of one part of qkv (plain ops). */
function plainWrite(qkv: tf.Tensor, cache: tf.Tensor, H: number, part: number, position: number): tf.Tensor {
  const [, B, threeC] = qkv.shape;
  const [, , capacity, D] = cache.shape;
  const heads = tf.reshape(tf.split(qkv, 3, 2)[part], [B, H, 1, threeC / 3 / H]);
  const before = tf.slice(cache, [0, 0, 0, 0], [B, H, position, D]);
  const after = tf.slice(cache, [0, 0, position + 1, 0], [B, H, capacity - position - 1, D]);
  return tf.concat([before, heads, after], 2);
}

/** decoding.ts's plain path over the first `length` positions: q k^T + the uploaded ALiBi row, softmax, times v. */
function plainAttention(qkv: tf.Tensor, keyCache: tf.Tensor, valueCache: tf.Tensor, H: number, length: number): tf.Tensor {
  const [, B, threeC] = qkv.shape;
  const C = threeC / 3;
  const T = length;
  const filled = (cache: tf.Tensor) => tf.slice(cache, [0, 0, 0, 0], [B, H, T, C / H]) as tf.Tensor4D;
  const slopes = alibiSlopes(H);
  const row = Float32Array.from({ length: H * T }, (_, i) => -slopes[Math.floor(i / T)] * (T - 1 - (i % T)));
  const q = tf.reshape(tf.split(qkv, 3, 2)[0], [B, H, 1, C / H]) as tf.Tensor4D;
  const weights = tf.softmax(tf.add(tf.matMul(q, filled(keyCache), false, true), tf.tensor4d(row, [1, H, 1, T])));
  return tf.reshape(tf.matMul(weights, filled(valueCache)), [1, B, C]);
}

function kernelCases(): KernelCase[] {
  const rng = new Random(5);
  const cases: KernelCase[] = [];
  for (const shape of [[1, 1, 64], [1, 128, 64], [1, 3, 8], [4, 7, 130]]) {
    const eps = 1e-5;
    cases.push({
      kernel: FUSED_KERNELS.rmsNorm,
      label: `x [${shape}]`,
      inputs: { x: normals(rng, shape, 1.5) },
      fused: ({ x }) => rmsNorm(x, eps),
      plain: ({ x }) => plainRmsNorm(x, eps),
    });
  }
  for (const shape of [[1, 1, 256], [1, 128, 256], [3, 7, 5]]) {
    const offset = 1.3;
    cases.push({
      kernel: FUSED_KERNELS.geluGate,
      label: `x [${shape}]`,
      inputs: { x: normals(rng, shape, 2) },
      fused: ({ x }) => geluGate(x, offset),
      plain: ({ x }) => plainGeluGate(x, offset),
    });
  }
  // Positions first, inside and last of the capacity; the rest of the cache must stay as it was.
  for (const [B, H, D, capacity, position] of [[1, 4, 16, 1, 0], [1, 4, 16, 8, 1], [3, 2, 8, 71, 70], [128, 4, 16, 256, 5]]) {
    for (const part of [QKV_PART.key, QKV_PART.value]) {
      cases.push({
        kernel: FUSED_KERNELS.writeHeads,
        label: `B=${B} H=${H} D=${D} capacity=${capacity} position=${position} part=${part === QKV_PART.key ? 'key' : 'value'}`,
        inputs: { qkv: normals(rng, [1, B, 3 * H * D], 1), cache: normals(rng, [B, H, capacity, D], 1) },
        fused: ({ qkv, cache }) => writeHeads(qkv as tf.Tensor3D, cache as tf.Tensor4D, H, part, position),
        plain: ({ qkv, cache }) => plainWrite(qkv, cache, H, part, position),
      });
    }
  }
  // T crosses the 64-key tile; D = 24 leaves two key groups, D = 96 is wider than the workgroup;
  // where the capacity is larger than T, what lies past T must not count.
  const attentionShapes = [[1, 4, 16, 1, 1], [1, 1, 8, 1, 5], [2, 4, 16, 64, 64], [2, 4, 16, 65, 256], [3, 2, 8, 130, 130], [5, 3, 24, 100, 101], [1, 2, 96, 70, 80], [128, 4, 16, 17, 256]];
  for (const [B, H, D, T, capacity] of attentionShapes) {
    cases.push({
      kernel: FUSED_KERNELS.alibiAttention,
      label: `B=${B} H=${H} D=${D} T=${T} capacity=${capacity}`,
      inputs: { qkv: normals(rng, [1, B, 3 * H * D], 0.5), keys: normals(rng, [B, H, capacity, D], 1), values: normals(rng, [B, H, capacity, D], 1) },
      fused: ({ qkv, keys, values }) => alibiAttention(qkv as tf.Tensor3D, keys as tf.Tensor4D, values as tf.Tensor4D, H, T),
      plain: ({ qkv, keys, values }) => plainAttention(qkv, keys, values, H, T),
    });
  }
  return cases;
}

/** f of the inputs on `backend`, read back; every tensor made is freed. */
async function evaluate(backend: 'webgpu' | 'cpu', data: InputData, f: (t: Inputs) => tf.Tensor): Promise<{ shape: number[]; values: Float32Array }> {
  await tf.setBackend(backend);
  const inputs: Inputs = {};
  for (const [name, { shape, values }] of Object.entries(data)) inputs[name] = tf.tensor(values, shape);
  const out = tf.tidy(() => f(inputs));
  const values = (await out.data()) as Float32Array;
  const shape = out.shape;
  tf.dispose([out, ...Object.values(inputs)]);
  return { shape, values };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

async function startWebgpu(): Promise<void> {
  registerBrowserBackends();
  registerFusedWebGpuKernels();
  if (!(await tf.setBackend('webgpu'))) throw new Error('the webgpu backend did not start');
}

async function compareKernels(): Promise<{ comparisons: KernelComparison[]; tensorsLeaked: number }> {
  await startWebgpu();
  const before = tf.memory().numTensors;
  const comparisons: KernelComparison[] = [];
  for (const c of kernelCases()) {
    const fused = await evaluate('webgpu', c.inputs, c.fused);
    const onWebgpu = await evaluate('webgpu', c.inputs, c.plain);
    const onCpu = await evaluate('cpu', c.inputs, c.plain);
    const sameShape = tf.util.arraysEqual(fused.shape, onWebgpu.shape) && tf.util.arraysEqual(fused.shape, onCpu.shape);
    comparisons.push({
      kernel: c.kernel,
      label: c.label,
      outputShape: fused.shape,
      maxDiffWebgpu: sameShape ? maxAbsDiff(fused.values, onWebgpu.values) : Infinity,
      maxDiffCpu: sameShape ? maxAbsDiff(fused.values, onCpu.values) : Infinity,
    });
  }
  await tf.setBackend('webgpu');
  return { comparisons, tensorsLeaked: tf.memory().numTensors - before };
}

export interface SamplingComparison {
  temperature: number;
  /** Rows whose token differs from the JS sampler's with the same seed, of `rows`. */
  mismatches: number;
  rows: number;
  /** Largest |log-prob on the device - in JS| over the rows. */
  maxLogProbDiff: number;
  /** What sampleTokens read back: one [B, 2] float32. */
  readbacks: number;
  readbackBytes: number;
}

/**
 * sampleTokens on webgpu (the fused kernel) against sampleFromLogits in JS, from the same seed, on
 * 128 rows of 99 logits; every other row has its lower half at -Infinity, as a top-p filter leaves
 * it. Also the draws at the ends of [0, 1): the first and the last token that can be drawn.
 */
async function compareSampling(): Promise<{ comparisons: SamplingComparison[]; edgeTokens: number[]; tensorsLeaked: number }> {
  await startWebgpu();
  const before = tf.memory().numTensors;
  const [B, V] = [128, 99];
  const rng = new Random(12);
  const data = normals(rng, [B, V], 3).values;
  for (let b = 1; b < B; b += 2) {
    const row = data.subarray(b * V, (b + 1) * V);
    const median = [...row].sort((x, y) => x - y)[Math.floor(V / 2)];
    row.forEach((x, i) => (row[i] = x < median ? -Infinity : x));
  }
  const logits = tf.tensor2d(data, [B, V]);
  const comparisons: SamplingComparison[] = [];
  for (const temperature of [0, 0.7, 1, 1.5]) {
    const expected = sampleFromLogits(data, B, temperature, new Random(40));
    const counter = countDispatches();
    const onDevice = await sampleTokens(logits, temperature, new Random(40));
    const { readbacks, readbackBytes } = counter.counts();
    counter.stop();
    let mismatches = 0;
    let maxLogProbDiff = 0;
    for (let b = 0; b < B; b++) {
      if (onDevice.tokens[b] !== expected.tokens[b]) mismatches++;
      else maxLogProbDiff = Math.max(maxLogProbDiff, Math.abs(onDevice.logProbs[b] - expected.logProbs[b]));
    }
    comparisons.push({ temperature, mismatches, rows: B, maxLogProbDiff, readbacks, readbackBytes });
  }
  logits.dispose();
  const edge = tf.tidy(() => sampleRows(tf.tensor2d([0, -Infinity, 0, -Infinity, 0, -Infinity, 0, -Infinity], [2, 4]), tf.tensor1d([0, 1 - 2 ** -24]), 1));
  const pairs = await edge.data();
  edge.dispose();
  return { comparisons, edgeTokens: [pairs[0], pairs[2]], tensorsLeaked: tf.memory().numTensors - before };
}

export interface AdamRun {
  /** Every variable's values after the steps, concatenated. */
  values: number[];
  iterations: number;
  /** Kernel calls (engine) and GPU programs (webgpu; 0 on cpu) of one applyGradients after the first. */
  kernelsPerStep: number;
  gpuProgramsPerStep: number;
}

/** Counts the WebGPU backend's programs (real dispatches: a Reshape runs none, a SplitV one per part) until stopped. */
function countGpuPrograms(): { programs(): number; stop(): void } {
  const backend = tf.backend() as WebGPUBackend;
  const original = backend.runWebGPUProgram;
  let programs = 0;
  backend.runWebGPUProgram = function (this: WebGPUBackend, ...args: Parameters<WebGPUBackend['runWebGPUProgram']>) {
    programs++;
    return original.apply(this, args);
  };
  return {
    programs: () => programs,
    // The own property shadows the prototype's method; deleting it restores the original.
    stop: () => delete (backend as unknown as Record<string, unknown>).runWebGPUProgram,
  };
}

let adamRuns = 0;

/**
 * Three Adam steps on seeded variables and gradients through fusedOps.applyGradients, the first
 * `fusedSteps` with the fused kernel registered and the rest without; the last step is counted.
 */
async function adamRun(backend: 'webgpu' | 'cpu', fusedSteps: number): Promise<AdamRun> {
  await tf.setBackend(backend);
  const rng = new Random(9);
  const shapes = [[3, 5], [64], [7, 130]];
  const run = adamRuns++;
  const variables = shapes.map((shape, i) => tf.tidy(() => tf.variable(tf.tensor(normals(rng, shape, 1).values, shape), true, `adamCheck${run}.${i}`)));
  const optimizer = tf.train.adam(0.01);
  let kernelsPerStep = 0;
  let gpuProgramsPerStep = 0;
  for (let step = 0; step < 3; step++) {
    if (step < fusedSteps) registerFusedWebGpuKernels();
    else unregisterFusedWebGpuKernels();
    const grads: tf.NamedTensorMap = {};
    variables.forEach((v, i) => (grads[v.name] = tf.tensor(normals(rng, shapes[i], 0.5).values, shapes[i])));
    // The first step also makes the moments (zerosLike): count a later one.
    const last = step === 2;
    const counter = last ? countDispatches() : null;
    const gpuCounter = last && backend === 'webgpu' ? countGpuPrograms() : null;
    applyGradients(optimizer, grads);
    kernelsPerStep = counter?.counts().kernels ?? 0;
    gpuProgramsPerStep = gpuCounter?.programs() ?? 0;
    counter?.stop();
    gpuCounter?.stop();
    tf.dispose(Object.values(grads));
  }
  registerFusedWebGpuKernels();
  const values = (await Promise.all(variables.map((v) => v.data()))).flatMap((d) => Array.from(d));
  const iterations = optimizer.iterations;
  optimizer.dispose();
  tf.dispose(variables);
  return { values, iterations, kernelsPerStep, gpuProgramsPerStep };
}

/** Fused steps only; two fused then one of tfjs's own (the state must carry over); tfjs's only, on webgpu and cpu. */
async function compareAdam(): Promise<{ fused: AdamRun; mixed: AdamRun; plainWebgpu: AdamRun; plainCpu: AdamRun; tensorsLeaked: number }> {
  await startWebgpu();
  const before = tf.memory().numTensors;
  const fused = await adamRun('webgpu', 3);
  const mixed = await adamRun('webgpu', 2);
  const plainWebgpu = await adamRun('webgpu', 0);
  const plainCpu = await adamRun('cpu', 0);
  await tf.setBackend('webgpu');
  return { fused, mixed, plainWebgpu, plainCpu, tensorsLeaked: tf.memory().numTensors - before };
}

/** Every weight N(0, 0.2), LayerNorm gains 1 + N(0, 0.2): large enough that attention and ALiBi matter. */
function randomModel(config: GPTConfig, seed: number): GPT {
  const rng = new Random(seed);
  const weights: Record<string, Float32Array> = {};
  for (const spec of weightSpecs(config)) {
    const offset = spec.name.endsWith('gamma') ? 1 : 0;
    weights[spec.name] = normals(rng, spec.shape, 0.2).values.map((x) => x + offset);
  }
  return GPT.fromWeights(config, weights);
}

export interface DecodeComparison {
  positions: number;
  /** Positions the decode took in one prefill before its token steps. */
  prefilled: number;
  /** Largest |step - forward| over every position's logits and values. */
  maxLogitDiff: number;
  maxValueDiff: number;
  /** Fused attention kernels the decode ran (nLayer per position when the fused path ran). */
  fusedAttentionCalls: number;
  tensorsLeaked: number;
}

/**
 * Prefills B sequences' first positions into the KV cache, decodes the rest position by position and
 * compares with one forward pass; midway the middle sequence leaves the cache (keepRows), as a
 * finished rollout does.
 */
async function compareDecode(): Promise<DecodeComparison> {
  await startWebgpu();
  const config: GPTConfig = { vocabSize: 99, contextLength: 66, nLayer: 2, nHead: 4, nEmbd: 64, mlpRatio: 4 };
  const B = 3;
  const T = 66; // past the attention kernel's 64-key tile, and the whole preallocated capacity
  const keepAt = 40;
  const prefilled = 20;
  const model = randomModel(config, 3);
  const rng = new Random(4);
  const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, config.vocabSize - 1));
  const full = tf.tidy(() => model.forward(tf.tensor2d(tokens, [B, T], 'int32')));
  const fullLogits = await full.logits.data();
  const fullValues = await full.values.data();
  tf.dispose([full.logits, full.values]);
  const before = tf.memory().numTensors;
  const counter = countDispatches();
  const cache = model.newCache(B);
  let rows = [0, 1, 2];
  let maxLogitDiff = 0;
  let maxValueDiff = 0;
  const V = config.vocabSize;
  for (let t = prefilled - 1; t < T; t++) {
    if (t === keepAt) {
      cache.keepRows([0, 2]);
      rows = [0, 2];
    }
    const out =
      t === prefilled - 1
        ? model.prefill(cache, rows.map((b) => tokens.slice(b * T, b * T + prefilled)))
        : model.step(cache, Int32Array.from(rows, (b) => tokens[b * T + t]));
    const [logits, values] = await Promise.all([out.logits.data(), out.values.data()]);
    tf.dispose([out.logits, out.values]);
    rows.forEach((b, row) => {
      maxValueDiff = Math.max(maxValueDiff, Math.abs(values[row] - fullValues[b * T + t]));
      for (let v = 0; v < V; v++) maxLogitDiff = Math.max(maxLogitDiff, Math.abs(logits[row * V + v] - fullLogits[(b * T + t) * V + v]));
    });
  }
  cache.dispose();
  const fusedAttentionCalls = counter.counts().byKernel[FUSED_KERNELS.alibiAttention] ?? 0;
  counter.stop();
  const tensorsLeaked = tf.memory().numTensors - before;
  model.dispose();
  return { positions: T, prefilled, maxLogitDiff, maxValueDiff, fusedAttentionCalls, tensorsLeaked };
}

export interface StepCost {
  /** Engine kernel calls per token step (what the benchmark's dispatchesPerTokenStep counts), mean over the steps. */
  kernelsPerStep: number;
  /** The same, last step only (every step after the first costs the same). */
  kernelsLastStep: number;
  /** WebGPU programs per token step, mean: real dispatches (a Reshape runs none; a kernel may run several). */
  gpuProgramsPerStep: number;
  byKernel: Record<string, number>;
  /** Median wall time of a token step with its readback, ms (SwiftShader: a CPU, so only a rough guide). */
  medianStepMs: number;
  tensorsLeaked: number;
}

async function decodeCost(model: GPT, batch: number, steps: number, fused: boolean): Promise<StepCost> {
  if (fused) registerFusedWebGpuKernels();
  else unregisterFusedWebGpuKernels();
  const before = tf.memory().numTensors;
  const warmUp = model.newCache(batch);
  for (let t = 0; t < 2; t++) {
    const out = model.step(warmUp, new Int32Array(batch).fill(t + 3));
    await out.logits.data();
    tf.dispose([out.logits, out.values]);
  }
  warmUp.dispose();
  const cache = model.newCache(batch);
  const counter = countDispatches();
  const gpuCounter = countGpuPrograms();
  const times: number[] = [];
  let lastStepKernels = 0;
  for (let t = 0; t < steps; t++) {
    const started = performance.now();
    const kernelsBefore = counter.counts().kernels;
    const out = model.step(cache, Int32Array.from({ length: batch }, (_, b) => (7 * t + b) % model.config.vocabSize));
    lastStepKernels = counter.counts().kernels - kernelsBefore;
    await out.logits.data();
    tf.dispose([out.logits, out.values]);
    times.push(performance.now() - started);
  }
  const counts = counter.counts();
  const programs = gpuCounter.programs();
  counter.stop();
  gpuCounter.stop();
  cache.dispose();
  registerFusedWebGpuKernels();
  const byKernel: Record<string, number> = {};
  for (const [name, n] of Object.entries(counts.byKernel)) byKernel[name] = Math.round((n / steps) * 100) / 100;
  times.sort((a, b) => a - b);
  return {
    kernelsPerStep: Math.round((counts.kernels / steps) * 100) / 100,
    kernelsLastStep: lastStepKernels,
    gpuProgramsPerStep: Math.round((programs / steps) * 100) / 100,
    byKernel,
    medianStepMs: Math.round(times[Math.floor(times.length / 2)] * 10) / 10,
    tensorsLeaked: tf.memory().numTensors - before,
  };
}

/** A token step of BASE_MODEL_CONFIG on webgpu, plain ops and fused kernels. */
async function tokenStepCost(batch = 8, steps = 12): Promise<{ plain: StepCost; fused: StepCost }> {
  await startWebgpu();
  const model = GPT.init(BASE_MODEL_CONFIG, 1);
  try {
    const plain = await decodeCost(model, batch, steps, false);
    const fused = await decodeCost(model, batch, steps, true);
    return { plain, fused };
  } finally {
    model.dispose();
  }
}

/**
 * The global gradient norm the PPO update clips by, over as many gradients as the base model has
 * (43), each all ones: sqrt(1 + 2 + ... + 43). More inputs than WebGPU's 8 storage buffers per
 * shader once made tfjs's AddN pipeline invalid, and the read returned a stale buffer instead.
 */
async function gradientNorm(): Promise<{ norm: number; expected: number; tensorsLeaked: number }> {
  await startWebgpu();
  const before = tf.memory().numTensors;
  const sizes = Array.from({ length: 43 }, (_, i) => i + 1);
  const grads = Object.fromEntries(sizes.map((n, i) => [`g${i}`, tf.ones([n])]));
  const { grads: clipped, norm } = await clipByGlobalNorm(grads, 1e9);
  tf.dispose([...Object.values(grads), ...Object.values(clipped)]);
  return { norm, expected: Math.sqrt(sizes.reduce((a, b) => a + b, 0)), tensorsLeaked: tf.memory().numTensors - before };
}

const harness = { compareKernels, compareSampling, compareAdam, compareDecode, tokenStepCost, gradientNorm };
export type FusedKernelsHarness = typeof harness;

declare global {
  interface Window {
    fusedKernelsHarness: FusedKernelsHarness;
  }
}

window.fusedKernelsHarness = harness;
