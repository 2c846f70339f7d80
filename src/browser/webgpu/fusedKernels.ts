/**
 * The fused kernels of src/core/model/fusedOps.ts as WGSL programs on tfjs's WebGPU backend. Once
 * registered, the engine finds them by name (hasFusedKernel) and a decoding step or an Adam step
 * runs fewer dispatches; no other backend is touched. Register before or after the backend starts.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { WebGPUBackend } from '@tensorflow/tfjs-backend-webgpu';
import { FUSED_KERNELS, QKV_PART, type AdamStepAttrs } from '../../core/model/fusedOps';
import { AdamProgram, type AdamResult } from './adamProgram';
import { AlibiAttentionProgram } from './alibiAttentionProgram';
import { AppendHeadsProgram } from './appendHeadsProgram';
import { GeluGateProgram } from './geluGateProgram';
import { RmsNormProgram } from './rmsNormProgram';

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

function appendHeads({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { qkv, past } = inputs as { qkv: tf.TensorInfo; past?: tf.TensorInfo };
  const { nHead, part } = attrs as { nHead: number; part: number };
  const kernel = FUSED_KERNELS.appendHeads;
  expectFloat(kernel, past ? { qkv, past } : { qkv });
  if (part !== QKV_PART.key && part !== QKV_PART.value) throw new Error(`${kernel}: part must be ${QKV_PART.key} or ${QKV_PART.value}, got ${part}`);
  const [B, H, D] = headShape(kernel, qkv, nHead);
  const pastLength = past ? past.shape[2] : 0;
  if (past && (past.shape.length !== 4 || past.shape[0] !== B || past.shape[1] !== H || past.shape[3] !== D)) {
    throw new Error(`${kernel}: past must be [${B}, ${H}, T, ${D}], got [${past.shape}]`);
  }
  const program = new AppendHeadsProgram([B, H, pastLength + 1, D], past !== undefined);
  const uniforms = [{ type: 'int32', data: [part * H * D] }];
  return (backend as WebGPUBackend).runWebGPUProgram(program, past ? [qkv, past] : [qkv], 'float32', uniforms);
}

function alibiAttention({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { qkv, keys, values } = inputs as { qkv: tf.TensorInfo; keys: tf.TensorInfo; values: tf.TensorInfo };
  const { nHead } = attrs as { nHead: number };
  const kernel = FUSED_KERNELS.alibiAttention;
  expectFloat(kernel, { qkv, keys, values });
  const [B, H, D] = headShape(kernel, qkv, nHead);
  for (const [name, cache] of Object.entries({ keys, values })) {
    const [b, h, t, d] = cache.shape;
    if (cache.shape.length !== 4 || b !== B || h !== H || d !== D || t < 1 || t !== keys.shape[2]) {
      throw new Error(`${kernel}: ${name} must be [${B}, ${H}, T, ${D}] with T >= 1 as keys, got [${cache.shape}]`);
    }
  }
  const program = new AlibiAttentionProgram([1, B, H * D], H);
  return (backend as WebGPUBackend).runWebGPUProgram(program, [qkv, keys, values], 'float32');
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
  { kernelName: FUSED_KERNELS.appendHeads, backendName: 'webgpu', kernelFunc: appendHeads },
  { kernelName: FUSED_KERNELS.alibiAttention, backendName: 'webgpu', kernelFunc: alibiAttention },
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
