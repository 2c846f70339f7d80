/**
 * The fused kernels of src/core/model/fusedOps.ts as WGSL programs on tfjs's WebGPU backend. Once
 * registered, the engine finds them by name (hasFusedKernel): a decoding step or an Adam step runs
 * fewer dispatches, the KV cache is preallocated and written in place, and a token is drawn on the
 * device; no other backend is touched. Register before or after the backend starts.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { WebGPUBackend } from '@tensorflow/tfjs-backend-webgpu';
import { FUSED_KERNELS, QKV_PART } from '../../core/model/fusedOps';
import type { AdamStepAttrs } from '../../core/optim/adamStep';
import { AdamProgram, type AdamResult } from './adamProgram';
import { AlibiAttentionProgram } from './alibiAttentionProgram';
import { GeluGateProgram } from './geluGateProgram';
import { RmsNormProgram } from './rmsNormProgram';
import { SampleRowsProgram } from './sampleRowsProgram';
import { WriteHeadsProgram } from './writeHeadsProgram';

type KernelArgs = Parameters<tf.KernelFunc>[0];

function expectFloat(kernel: string, named: Record<string, tf.TensorInfo>): void {
  for (const [name, t] of Object.entries(named)) {
    if (t.dtype !== 'float32') throw new Error(`${kernel}: ${name} must be float32, got ${t.dtype}`);
  }
}

function rmsNorm({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const x = inputs.x!;
  expectFloat(FUSED_KERNELS.rmsNorm, { x });
  const { eps } = attrs as { eps: number };
  const rowLength = x.shape[x.shape.length - 1];
  const uniforms = [
    { type: 'int32', data: [rowLength] },
    { type: 'float32', data: [eps] },
  ];
  return (backend as WebGPUBackend).runWebGPUProgram(new RmsNormProgram(x.shape), [x], 'float32', uniforms);
}

function geluGate({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const x = inputs.x!;
  expectFloat(FUSED_KERNELS.geluGate, { x });
  const { offset } = attrs as { offset: number };
  return (backend as WebGPUBackend).runWebGPUProgram(new GeluGateProgram(x.shape), [x], 'float32', [{ type: 'float32', data: [offset] }]);
}

/** qkv [1, B, 3C] and nHead as [B, H, D], or why not. */
function headShape(kernel: string, qkv: tf.TensorInfo, nHead: number): [number, number, number] {
  const [one, B, threeC] = qkv.shape;
  if (qkv.shape.length !== 3 || one !== 1 || threeC % (3 * nHead) !== 0) {
    throw new Error(`${kernel}: qkv must be [1, B, 3C] with C a multiple of nHead ${nHead}, got [${qkv.shape}]`);
  }
  return [B, nHead, threeC / 3 / nHead];
}

function writeHeads({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { qkv, cache } = inputs as { qkv: tf.TensorInfo; cache: tf.TensorInfo };
  const { nHead, part, position } = attrs as { nHead: number; part: number; position: number };
  const kernel = FUSED_KERNELS.writeHeads;
  expectFloat(kernel, { qkv, cache });
  if (part !== QKV_PART.key && part !== QKV_PART.value) throw new Error(`${kernel}: part must be ${QKV_PART.key} or ${QKV_PART.value}, got ${part}`);
  const [B, H, D] = headShape(kernel, qkv, nHead);
  const [b, h, capacity, d] = cache.shape;
  if (cache.shape.length !== 4 || b !== B || h !== H || d !== D) throw new Error(`${kernel}: cache must be [${B}, ${H}, capacity, ${D}], got [${cache.shape}]`);
  if (!Number.isInteger(position) || position < 0 || position >= capacity) {
    throw new Error(`${kernel}: position ${position} is outside the cache's capacity of ${capacity}`);
  }
  const webgpu = backend as WebGPUBackend;
  const uniforms = [{ type: 'int32', data: [part * H * D] }, { type: 'int32', data: [position] }];
  webgpu.runWebGPUProgram(new WriteHeadsProgram(cache.shape), [qkv], 'float32', uniforms, cache);
  // A second handle on the written storage, counted as reshape counts its own.
  webgpu.incRef(cache.dataId);
  return { dataId: cache.dataId, shape: cache.shape, dtype: cache.dtype };
}

function alibiAttention({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { qkv, keys, values } = inputs as { qkv: tf.TensorInfo; keys: tf.TensorInfo; values: tf.TensorInfo };
  const { nHead, length } = attrs as { nHead: number; length: number };
  const kernel = FUSED_KERNELS.alibiAttention;
  expectFloat(kernel, { qkv, keys, values });
  const [B, H, D] = headShape(kernel, qkv, nHead);
  for (const [name, cache] of Object.entries({ keys, values })) {
    const [b, h, capacity, d] = cache.shape;
    if (cache.shape.length !== 4 || b !== B || h !== H || d !== D || capacity !== keys.shape[2]) {
      throw new Error(`${kernel}: ${name} must be [${B}, ${H}, capacity, ${D}] as keys, got [${cache.shape}]`);
    }
  }
  if (!Number.isInteger(length) || length < 1 || length > keys.shape[2]) {
    throw new Error(`${kernel}: length must be an integer in [1, ${keys.shape[2]}], got ${length}`);
  }
  const program = new AlibiAttentionProgram([1, B, H * D], H);
  return (backend as WebGPUBackend).runWebGPUProgram(program, [qkv, keys, values], 'float32', [{ type: 'int32', data: [length] }]);
}

function sampleRows({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { logits, draws } = inputs as { logits: tf.TensorInfo; draws: tf.TensorInfo };
  const { temperature } = attrs as { temperature: number };
  const kernel = FUSED_KERNELS.sampleRows;
  expectFloat(kernel, { logits, draws });
  if (logits.shape.length !== 2 || draws.shape.length !== 1 || draws.shape[0] !== logits.shape[0]) {
    throw new Error(`${kernel}: logits must be [B, V] and draws [B], got [${logits.shape}] and [${draws.shape}]`);
  }
  if (!(temperature >= 0) || !Number.isFinite(temperature)) throw new Error(`${kernel}: temperature must be a finite number >= 0, got ${temperature}`);
  const greedy = temperature === 0;
  const uniforms = [{ type: 'float32', data: [greedy ? 1 : 1 / temperature] }, { type: 'int32', data: [greedy ? 1 : 0] }];
  return (backend as WebGPUBackend).runWebGPUProgram(new SampleRowsProgram(logits.shape[0]), [logits, draws], 'float32', uniforms);
}

function adamUpdate({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo[] {
  const { value, m, v, gradient } = inputs as Record<'value' | 'm' | 'v' | 'gradient', tf.TensorInfo>;
  const kernel = FUSED_KERNELS.adamUpdate;
  expectFloat(kernel, { value, m, v, gradient });
  for (const [name, t] of Object.entries({ m, v, gradient })) {
    if (!tf.util.arraysEqual(t.shape, value.shape)) throw new Error(`${kernel}: ${name} must have the value's shape [${value.shape}], got [${t.shape}]`);
  }
  const a = attrs as unknown as AdamStepAttrs;
  const uniforms = [a.learningRate, a.beta1, 1 - a.beta1, a.beta2, 1 - a.beta2, a.epsilon, a.firstCorrection, a.secondCorrection].map((x) => ({
    type: 'float32',
    data: [x],
  }));
  const webgpu = backend as WebGPUBackend;
  const run = (result: AdamResult, from: tf.TensorInfo[]) => webgpu.runWebGPUProgram(new AdamProgram(value.shape, result), from, 'float32', uniforms);
  return [run('value', [value, m, v, gradient]), run('firstMoment', [m, gradient]), run('secondMoment', [v, gradient])];
}

const KERNELS: tf.KernelConfig[] = [
  { kernelName: FUSED_KERNELS.rmsNorm, backendName: 'webgpu', kernelFunc: rmsNorm },
  { kernelName: FUSED_KERNELS.geluGate, backendName: 'webgpu', kernelFunc: geluGate },
  { kernelName: FUSED_KERNELS.writeHeads, backendName: 'webgpu', kernelFunc: writeHeads },
  { kernelName: FUSED_KERNELS.alibiAttention, backendName: 'webgpu', kernelFunc: alibiAttention },
  { kernelName: FUSED_KERNELS.sampleRows, backendName: 'webgpu', kernelFunc: sampleRows },
  { kernelName: FUSED_KERNELS.adamUpdate, backendName: 'webgpu', kernelFunc: adamUpdate },
];

/** Registers every fused kernel for 'webgpu' (again is a no-op). */
export function registerFusedWebGpuKernels(): void {
  for (const config of KERNELS) if (!tf.getKernel(config.kernelName, config.backendName)) tf.registerKernel(config);
}

/** Removes them again, so the plain ops run (for before/after measurements and reference tests). */
export function unregisterFusedWebGpuKernels(): void {
  for (const config of KERNELS) if (tf.getKernel(config.kernelName, config.backendName)) tf.unregisterKernel(config.kernelName, config.backendName);
}
