/**
 * TIR Lab's own kernels for the tfjs wasm backend (kernels/tirKernels.ts, compiled into
 * wasmKernelBinary.ts), registered as tfjs kernels: for the training pass (gpt.ts, attention.ts)
 * causal ALiBi attention, GELU and LayerNorm, forward and backward, and column sums; for decoding
 * (decoding.ts) the fused kernels fusedOps.ts names, the KV cache written in place among them. The
 * module imports the backend's own memory, so a kernel reads its inputs and writes its outputs where
 * tfjs keeps them: no copy, as tfjs's built-in kernels.
 *
 * Each replaces several memory-bound tfjs kernels (docs/performance.md), and each computes what the
 * plain ops compute up to float rounding (test/wasmKernels.test.ts). They run where the backend is
 * wasm and its memory could be found; elsewhere `usesWasmKernels` says no and the plain ops run.
 *
 * The module is compiled once per realm: `prepareWasmKernels()` does it asynchronously, which a
 * browser's main thread requires for modules over 4 KB; a host that did not call it gets a
 * synchronous compile on first use, which Node and workers allow.
 */
import * as tf from '@tensorflow/tfjs-core';
import { alibiSlopes } from './weights';
import { FUSED_KERNELS } from './fusedOps';
import { WASM_KERNELS_BASE64, WASM_KERNELS_SHARED_BASE64 } from './wasmKernelBinary';

/** Kernel names, as registered with tf.registerKernel for the wasm backend. */
export const WASM_KERNELS = {
  attention: 'TirCausalAttention',
  attentionGrad: 'TirCausalAttentionGrad',
  gelu: 'TirGelu',
  geluGrad: 'TirGeluGrad',
  columnSums: 'TirColumnSums',
  layerNorm: 'TirLayerNorm',
  layerNormGrad: 'TirLayerNormGrad',
} as const;

interface KernelExports {
  attentionForward(qkv: number, slopes: number, out: number, rows: number, scratch: number, B: number, T: number, H: number, D: number, scale: number): void;
  attentionBackward(qkv: number, slopes: number, out: number, rows: number, dOut: number, dQkv: number, scratch: number, B: number, T: number, H: number, D: number, scale: number): void;
  geluForward(x: number, y: number, n: number, scale: number, cubic: number): void;
  geluBackward(x: number, dy: number, dx: number, n: number, scale: number, cubic: number): void;
  columnSums(x: number, out: number, rows: number, cols: number): void;
  writeHeads(qkv: number, cache: number, B: number, H: number, D: number, capacity: number, part: number, position: number): void;
  cacheAttention(qkv: number, keys: number, values: number, slopes: number, out: number, scratch: number, B: number, H: number, D: number, capacity: number, length: number): void;
  rmsNorm(x: number, y: number, rows: number, C: number, eps: number): void;
  geluGate(x: number, y: number, n: number, offset: number): void;
  layerNormForward(x: number, gamma: number, beta: number, y: number, normalized: number, rstd: number, rows: number, C: number, eps: number): void;
  layerNormBackward(dy: number, normalized: number, rstd: number, gamma: number, dx: number, dGamma: number, dBeta: number, rows: number, C: number): void;
  embedRows(table: number, tokens: number, out: number, B: number, C: number): void;
  gatherRows(x: number, rows: number, out: number, count: number, rowFloats: number): void;
}

/** What these kernels need of tfjs-backend-wasm's BackendWasm (its own kernels use the same). */
interface WasmBackendInternals {
  wasm: { asm?: Record<string, unknown>; wasmMemory?: unknown };
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(dataId: object): boolean;
  incRef(dataId: object): void;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array;
}

type Compiled = { plain: WebAssembly.Module; shared: WebAssembly.Module };

let compiled: Compiled | null = null;
/** A synchronous compile was refused (a browser's main thread): only prepareWasmKernels() tries again. */
let syncCompileRefused = false;
const instances = new WeakMap<WebAssembly.Memory, KernelExports>();

function bytes(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** The backend's memory: exported by the single-threaded builds, kept on the module by the threaded one. */
function backendMemory(backend: WasmBackendInternals): WebAssembly.Memory | null {
  const candidates = [backend.wasm.asm?.memory, backend.wasm.wasmMemory];
  return (candidates.find((m) => m instanceof WebAssembly.Memory) as WebAssembly.Memory | undefined) ?? null;
}

function moduleFor(memory: WebAssembly.Memory, modules: Compiled): WebAssembly.Module {
  // A module's memory import must match the memory's sharedness (the threaded build's is shared).
  return typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer ? modules.shared : modules.plain;
}

/**
 * Compiles the module and, if the wasm backend is active, instantiates it on the backend's memory,
 * both asynchronously. Resolves false where the kernels cannot run (no SIMD, no memory found).
 */
export async function prepareWasmKernels(): Promise<boolean> {
  syncCompileRefused = false;
  try {
    compiled ??= {
      plain: await WebAssembly.compile(bytes(WASM_KERNELS_BASE64)),
      shared: await WebAssembly.compile(bytes(WASM_KERNELS_SHARED_BASE64)),
    };
  } catch {
    return false;
  }
  if (tf.getBackend() !== 'wasm') return true;
  const memory = backendMemory(tf.backend() as unknown as WasmBackendInternals);
  if (!memory) return false;
  if (!instances.has(memory)) {
    const instance = await WebAssembly.instantiate(moduleFor(memory, compiled), { env: { memory } });
    instances.set(memory, instance.exports as unknown as KernelExports);
  }
  installKernels();
  return true;
}

/** The kernels on this backend's memory, compiling synchronously if no one prepared them; null if they cannot run. */
function kernelsFor(backend: WasmBackendInternals): KernelExports | null {
  const memory = backendMemory(backend);
  if (!memory) return null;
  let exports = instances.get(memory);
  if (!exports) {
    if (syncCompileRefused) return null;
    try {
      compiled ??= { plain: new WebAssembly.Module(bytes(WASM_KERNELS_BASE64)), shared: new WebAssembly.Module(bytes(WASM_KERNELS_SHARED_BASE64)) };
      exports = new WebAssembly.Instance(moduleFor(memory, compiled), { env: { memory } }).exports as unknown as KernelExports;
    } catch {
      syncCompileRefused = true;
      return null;
    }
    instances.set(memory, exports);
    installKernels();
  }
  return exports;
}

/**
 * Registers the kernels with the wasm backend, once the module runs on its memory: where it cannot
 * (no SIMD, no memory found) nothing is registered, so decoding.ts's fused path and the training
 * pass's kernels stay off and the plain tfjs ops run. Also replaces tfjs-backend-wasm's Identity
 * (tf.clone), which copies the tensor's data: tf.customGrad clones every tensor a layer saves for its
 * gradient, a copy of each layer's input per training pass. On this backend a tensor's data is never
 * written once made (writeHeads below, the exception, writes only the decoding cache it owns), so the
 * clone shares it, reference-counted, as the backend's own Reshape does and as tfjs's cpu backend's
 * Identity does.
 */
function installKernels(): void {
  for (const config of KERNELS) if (!tf.getKernel(config.kernelName, 'wasm')) tf.registerKernel(config);
  if (tf.getKernel(tf.Identity, 'wasm')?.kernelFunc === sharedIdentity) return;
  tf.unregisterKernel(tf.Identity, 'wasm');
  tf.registerKernel({ kernelName: tf.Identity, backendName: 'wasm', kernelFunc: sharedIdentity });
}

function sharedIdentity({ inputs, backend }: { inputs: tf.NamedTensorInfoMap; backend: unknown }): tf.TensorInfo {
  const x = inputs.x!;
  (backend as WasmBackendInternals).incRef(x.dataId);
  return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
}

/**
 * Whether the kernels run here: on the tfjs wasm backend, when the module runs on its memory. The
 * first call on a backend instantiates the module and registers the kernels, so decoding (which asks
 * the kernel registry) and the training pass switch together, whichever runs first.
 */
export function usesWasmKernels(): boolean {
  return tf.getBackend() === 'wasm' && kernelsFor(tf.backend() as unknown as WasmBackendInternals) !== null;
}

/** The attention kernel sums 16 lanes of a head in registers: heads must be a multiple of this wide. */
export const ATTENTION_KERNEL_HEAD_MULTIPLE = 16;

// ---------------------------------------------------------------------------------------------
// The ops

/** Causal ALiBi attention over qkv [B, T, 3C] (attention.ts's layout): out [B, T, C], and per
 * query row its largest score and 1 / sum of exps [B, H, T, 2], which the gradient reads. */
export function causalAttentionKernel(qkv: tf.Tensor3D, slopes: tf.Tensor1D, nHead: number): { out: tf.Tensor3D; rows: tf.Tensor4D } {
  const [out, rows] = tf.engine().runKernel(WASM_KERNELS.attention, { qkv, slopes }, { nHead }) as tf.Tensor[];
  return { out: out as tf.Tensor3D, rows: rows as tf.Tensor4D };
}

/** The gradient of causalAttentionKernel with respect to qkv, from its inputs, outputs and dOut [B, T, C]. */
export function causalAttentionGradKernel(qkv: tf.Tensor3D, slopes: tf.Tensor1D, out: tf.Tensor3D, rows: tf.Tensor4D, dOut: tf.Tensor3D): tf.Tensor3D {
  return tf.engine().runKernel(WASM_KERNELS.attentionGrad, { qkv, slopes, out, rows, dOut }, {}) as tf.Tensor3D;
}

/** x sigmoid(scale (x + cubic x^3)), elementwise (gpt.ts's GELU). */
export function geluKernel<T extends tf.Tensor>(x: T, scale: number, cubic: number): T {
  return tf.engine().runKernel(WASM_KERNELS.gelu, { x }, { scale, cubic }) as T;
}

/**
 * LayerNorm over the last axis of x [..., C] (C a multiple of 4) with gain and shift [C]: y, and what
 * the gradient reads, xHat (same shape) and 1 / sqrt(var + eps) ([..., 1]).
 */
export function layerNormKernel(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor, eps: number): { y: tf.Tensor; normalized: tf.Tensor; rstd: tf.Tensor } {
  const [y, normalized, rstd] = tf.engine().runKernel(WASM_KERNELS.layerNorm, { x, gamma, beta }, { eps }) as tf.Tensor[];
  return { y, normalized, rstd };
}

/** The gradients of layerNormKernel with respect to x, gamma and beta, from dy and what it kept. */
export function layerNormGradKernel(dy: tf.Tensor, normalized: tf.Tensor, rstd: tf.Tensor, gamma: tf.Tensor): tf.Tensor[] {
  return tf.engine().runKernel(WASM_KERNELS.layerNormGrad, { dy, normalized, rstd, gamma }, {}) as tf.Tensor[];
}

/** Column sums of x [rows, cols] -> [cols]. */
export function columnSumsKernel(x: tf.Tensor2D): tf.Tensor1D {
  return tf.engine().runKernel(WASM_KERNELS.columnSums, { x }, {}) as tf.Tensor1D;
}

/** dy times the derivative of geluKernel at x. */
export function geluGradKernel<T extends tf.Tensor>(x: T, dy: T, scale: number, cubic: number): T {
  return tf.engine().runKernel(WASM_KERNELS.geluGrad, { x, dy }, { scale, cubic }) as T;
}

// ---------------------------------------------------------------------------------------------
// Registration with the wasm backend

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };

const KERNELS: tf.KernelConfig[] = [];

/** Offsets of the inputs' data, the kernels and the backend, for one kernel call. */
function call(args: KernelArgs) {
  const backend = args.backend as WasmBackendInternals;
  const kernels = kernelsFor(backend);
  if (!kernels) throw new Error('TIR Lab wasm kernels cannot run on this wasm backend (no SIMD, or its memory was not found)');
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
  const floatInput = (name: string) => {
    const t = args.inputs[name];
    if (!t) throw new Error(`kernel input ${name} is missing`);
    if (t.dtype !== 'float32') throw new Error(`${name} must be float32, got ${t.dtype}`);
    return t;
  };
  /** A float32 tensor of `values` in the backend's memory, for a kernel's constant; the caller disposes it. */
  const constant = (values: readonly number[]) => {
    const t = backend.makeOutput([values.length], 'float32');
    backend.typedArrayFromHeap(t).set(values);
    return t;
  };
  return { backend, kernels, offset, floatInput, constant };
}

/** The attention's shape from qkv [B, T, 3C] and the head count. */
function attentionShape(qkv: tf.TensorInfo, nHead: number) {
  const [B, T, threeC] = qkv.shape;
  const D = threeC / 3 / nHead;
  if (!Number.isInteger(D) || D % ATTENTION_KERNEL_HEAD_MULTIPLE !== 0) throw new Error(`attention kernel wants heads a multiple of ${ATTENTION_KERNEL_HEAD_MULTIPLE} wide, got qkv [${qkv.shape}] with ${nHead} heads`);
  return { B, T, H: nHead, D, scale: 1 / Math.sqrt(D) };
}

KERNELS.push({
  kernelName: WASM_KERNELS.attention,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const qkv = floatInput('qkv');
    const { B, T, H, D, scale } = attentionShape(qkv, args.attrs!.nHead as number);
    const out = backend.makeOutput([B, T, H * D], 'float32');
    const rows = backend.makeOutput([B, H, T, 2], 'float32');
    const scratch = backend.makeOutput([T], 'float32');
    kernels.attentionForward(offset(qkv), offset(floatInput('slopes')), offset(out), offset(rows), offset(scratch), B, T, H, D, scale);
    backend.disposeData(scratch.dataId);
    return [out, rows];
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.attentionGrad,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const qkv = floatInput('qkv');
    const rows = floatInput('rows');
    const { B, T, H, D, scale } = attentionShape(qkv, rows.shape[1]);
    const dQkv = backend.makeOutput([...qkv.shape], 'float32');
    const scratch = backend.makeOutput([2, T, T], 'float32');
    const [slopes, out, dOut] = ['slopes', 'out', 'dOut'].map((name) => offset(floatInput(name)));
    kernels.attentionBackward(offset(qkv), slopes, out, offset(rows), dOut, offset(dQkv), offset(scratch), B, T, H, D, scale);
    backend.disposeData(scratch.dataId);
    return dQkv;
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.gelu,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const y = backend.makeOutput([...x.shape], 'float32');
    kernels.geluForward(offset(x), offset(y), sizeOf(x), args.attrs!.scale as number, args.attrs!.cubic as number);
    return y;
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.geluGrad,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const dx = backend.makeOutput([...x.shape], 'float32');
    kernels.geluBackward(offset(x), offset(floatInput('dy')), offset(dx), sizeOf(x), args.attrs!.scale as number, args.attrs!.cubic as number);
    return dx;
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.columnSums,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    if (x.shape.length !== 2) throw new Error(`column sums want a matrix, got [${x.shape}]`);
    const [rows, cols] = x.shape;
    const out = backend.makeOutput([cols], 'float32');
    kernels.columnSums(offset(x), offset(out), rows, cols);
    return out;
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.layerNorm,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const C = x.shape[x.shape.length - 1];
    if (C % 4 !== 0) throw new Error(`LayerNorm kernel wants rows a multiple of 4 wide, got ${C}`);
    const y = backend.makeOutput([...x.shape], 'float32');
    const normalized = backend.makeOutput([...x.shape], 'float32');
    const rstd = backend.makeOutput([...x.shape.slice(0, -1), 1], 'float32');
    const [gamma, beta] = [floatInput('gamma'), floatInput('beta')];
    kernels.layerNormForward(offset(x), offset(gamma), offset(beta), offset(y), offset(normalized), offset(rstd), sizeOf(x) / C, C, args.attrs!.eps as number);
    return [y, normalized, rstd];
  },
});

KERNELS.push({
  kernelName: WASM_KERNELS.layerNormGrad,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const [dy, normalized, rstd, gamma] = [floatInput('dy'), floatInput('normalized'), floatInput('rstd'), floatInput('gamma')];
    const C = dy.shape[dy.shape.length - 1];
    const dx = backend.makeOutput([...dy.shape], 'float32');
    const dGamma = backend.makeOutput([C], 'float32');
    const dBeta = backend.makeOutput([C], 'float32');
    kernels.layerNormBackward(offset(dy), offset(normalized), offset(rstd), offset(gamma), offset(dx), offset(dGamma), offset(dBeta), sizeOf(dy) / C, C);
    return [dx, dGamma, dBeta];
  },
});

// decoding.ts's fused path (fusedOps.ts documents each kernel's inputs and attributes)

KERNELS.push({
  kernelName: FUSED_KERNELS.writeHeads,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const [qkv, cache] = [floatInput('qkv'), floatInput('cache')];
    const [B, H, capacity, D] = cache.shape;
    const { part, position } = args.attrs as { part: number; position: number };
    if (position < 0 || position >= capacity) throw new Error(`writeHeads position ${position} outside a cache of ${capacity}`);
    kernels.writeHeads(offset(qkv), offset(cache), B, H, D, capacity, part, position);
    backend.incRef(cache.dataId);
    return { dataId: cache.dataId, shape: [...cache.shape], dtype: cache.dtype };
  },
});

KERNELS.push({
  kernelName: FUSED_KERNELS.alibiAttention,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput, constant } = call(args);
    const [qkv, keys, values] = [floatInput('qkv'), floatInput('keys'), floatInput('values')];
    const [B, H, capacity, D] = keys.shape;
    const length = args.attrs!.length as number;
    if (D % ATTENTION_KERNEL_HEAD_MULTIPLE !== 0) throw new Error(`attention kernel wants heads a multiple of ${ATTENTION_KERNEL_HEAD_MULTIPLE} wide, got ${D}`);
    const out = backend.makeOutput([1, B, H * D], 'float32');
    const slopes = constant(alibiSlopes(H));
    const scratch = backend.makeOutput([capacity], 'float32');
    kernels.cacheAttention(offset(qkv), offset(keys), offset(values), offset(slopes), offset(out), offset(scratch), B, H, D, capacity, length);
    backend.disposeData(slopes.dataId);
    backend.disposeData(scratch.dataId);
    return out;
  },
});

KERNELS.push({
  kernelName: FUSED_KERNELS.rmsNorm,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const C = x.shape[x.shape.length - 1];
    const y = backend.makeOutput([...x.shape], 'float32');
    kernels.rmsNorm(offset(x), offset(y), sizeOf(x) / C, C, args.attrs!.eps as number);
    return y;
  },
});

KERNELS.push({
  kernelName: FUSED_KERNELS.geluGate,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const y = backend.makeOutput([...x.shape], 'float32');
    kernels.geluGate(offset(x), offset(y), sizeOf(x), args.attrs!.offset as number);
    return y;
  },
});

KERNELS.push({
  kernelName: FUSED_KERNELS.embedRows,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const table = floatInput('table');
    const tokens = args.inputs.tokens!;
    if (tokens.dtype !== 'int32') throw new Error(`embedRows wants int32 tokens, got ${tokens.dtype}`);
    const [, V, C] = table.shape;
    const B = tokens.shape[0];
    if (backend.typedArrayFromHeap(tokens).some((id) => id < 0 || id >= V)) throw new Error(`embedRows got a token outside [0, ${V})`);
    const out = backend.makeOutput([1, B, C], 'float32');
    kernels.embedRows(offset(table), offset(tokens), offset(out), B, C);
    return out;
  },
});

KERNELS.push({
  kernelName: FUSED_KERNELS.gatherRows,
  backendName: 'wasm',
  kernelFunc: (args) => {
    const { backend, kernels, offset, floatInput } = call(args);
    const x = floatInput('x');
    const rows = args.inputs.rows!;
    if (rows.dtype !== 'int32') throw new Error(`gatherRows wants int32 rows, got ${rows.dtype}`);
    const B = x.shape[0];
    if (backend.typedArrayFromHeap(rows).some((row) => row < 0 || row >= B)) throw new Error(`gatherRows got a row outside [0, ${B})`);
    const count = rows.shape[0];
    const out = backend.makeOutput([count, ...x.shape.slice(1)], 'float32');
    kernels.gatherRows(offset(x), offset(rows), offset(out), count, sizeOf(x) / B);
    return out;
  },
});

const sizeOf = (t: tf.TensorInfo) => t.shape.reduce((a, b) => a * b, 1);
