/**
 * Incremental decoding: one new position per sequence against a KV cache, the path every rollout
 * token takes. It computes the function of gpt.ts's full pass, but from weights rearranged once per
 * cache, because a tiny model's token step costs kernel dispatches, not FLOPs (docs/performance.md):
 * - each LayerNorm's gain and shift are folded into the linear layer that reads its output;
 * - the residual stream is kept centred (the embedding rows and every projection into the stream
 *   have their mean removed), since LayerNorm removes the mean anyway; a LayerNorm is then square,
 *   one matMul for the mean square (+ eps as its bias), rsqrt and a multiply;
 * - q is pre-scaled by 1/sqrt(D), and GELU's constants are folded into the MLP's two matrices;
 * - the stream is [1, B, width] and the matrices [1, in, out], the shapes tfjs's fused matMul kernel
 *   takes, so the kernel is called directly (the op would add three reshapes around it);
 * - the ALiBi bias row of the position is written in JS and uploaded, not sliced on the device.
 * Where the backend has fused kernels (fusedOps.ts: WebGPU's, and wasm's own in wasmKernels.ts), a
 * LayerNorm and the GELU gate are one dispatch each, and attention (writing the cache, ALiBi scores,
 * softmax, weighted sum) three, not 11; the cache is then preallocated to the context length and each
 * position written in place.
 * A cache decodes with the weights as they were when it was made: rollouts make one per batch.
 */
import * as tf from '@tensorflow/tfjs-core';
import { alibiSlopes } from './weights';
import type { GPTConfig } from './config';
import { alibiAttention, embedRows, FUSED_KERNELS, gatherRows, geluGate, hasFusedKernel, QKV_PART, rmsNorm, writeHeads } from './fusedOps';
import { ATTENTION_KERNEL_HEAD_MULTIPLE, usesWasmKernels } from './wasmKernels';
import { GELU_CUBIC, GELU_SCALE, LAYER_NORM_EPS, type LayerNormWeights, type Linear, type ModelWeights } from './weights';

// Type aliases, not interfaces, so that tf.tidy and tf.dispose accept them as tensor containers.
type Affine = {
  w: tf.Tensor3D;
  b: tf.Tensor1D;
};

/** Built as [in, out], kept as [1, in, out]. */
type FlatAffine = { w: tf.Tensor2D; b: tf.Tensor1D };

type DecodingBlock = {
  qkv: Affine;
  attnProj: Affine;
  fc: Affine;
  mlpProj: Affine;
};

type DecodingWeights = {
  /** [1, V, C]. */
  wte: tf.Tensor3D;
  blocks: DecodingBlock[];
  policyHead: Affine;
  valueHead: Affine;
  /** [1, C, 1] of 1/C: x^2 times this is the mean square of each row. */
  meanColumn: tf.Tensor3D;
  eps: tf.Tensor1D;
};

/*
 * GELU as z sigmoid(S z + S K z^3) (gpt.ts). With w = c z and c^3 = S K the sigmoid's argument is
 * w (A + w^2), A = S / c: four kernels for the gate; the fc matrix is scaled by c and the 1/c of
 * z = w / c goes into the projection's rows.
 */
const GELU_C = Math.cbrt(GELU_SCALE * GELU_CUBIC);
const GELU_A = GELU_SCALE / GELU_C;

/** Removes each output vector's mean: y = x W + b then has mean 0 over its C entries. */
function centredOutput({ w, b }: FlatAffine): FlatAffine {
  return { w: tf.sub(w, tf.mean(w, 1, true)), b: tf.sub(b, tf.mean(b)) };
}

/** The linear layer applied to LayerNorm(x) = xHat gamma + beta, as one applied to xHat. */
function foldNorm(norm: LayerNormWeights, { w, b }: { w: tf.Tensor; b: tf.Tensor }): FlatAffine {
  const gammaColumn = tf.reshape(norm.gamma, [-1, 1]);
  const shift = tf.reshape(tf.matMul(tf.reshape(norm.beta, [1, -1]), w as tf.Tensor2D), [-1]);
  return { w: tf.mul(gammaColumn, w) as tf.Tensor2D, b: tf.add(shift, b) as tf.Tensor1D };
}

function scaled({ w, b }: FlatAffine, scale: number | tf.Tensor): FlatAffine {
  return { w: tf.mul(w, scale), b: tf.mul(b, scale) };
}

function batched({ w, b }: FlatAffine): Affine {
  return { w: tf.expandDims(w, 0), b };
}

function decodingWeights(weights: ModelWeights, config: GPTConfig): DecodingWeights {
  const C = config.nEmbd;
  const headDim = C / config.nHead;
  const asAffine = (l: Linear): FlatAffine => ({ w: l.w as tf.Tensor2D, b: l.b as tf.Tensor1D });
  return tf.tidy(() => {
    // q's columns (the first C of qkv) carry attention's 1/sqrt(D)
    const qkvScale = tf.tensor1d(Array.from({ length: 3 * C }, (_, i) => (i < C ? 1 / Math.sqrt(headDim) : 1)));
    return {
      wte: tf.expandDims(tf.sub(weights.wte, tf.mean(weights.wte, 1, true)), 0) as tf.Tensor3D,
      blocks: weights.blocks.map((block) => ({
        qkv: batched(scaled(foldNorm(block.ln1, block.qkv), qkvScale)),
        attnProj: batched(centredOutput(asAffine(block.attnProj))),
        fc: batched(scaled(foldNorm(block.ln2, block.fc), GELU_C)),
        mlpProj: batched(centredOutput({ w: tf.div(block.mlpProj.w, GELU_C) as tf.Tensor2D, b: block.mlpProj.b as tf.Tensor1D })),
      })),
      policyHead: batched(foldNorm(weights.lnF, { w: weights.policyHead, b: tf.zeros([config.vocabSize]) })),
      valueHead: batched(foldNorm(weights.lnF, weights.valueHead)),
      meanColumn: tf.fill([1, C, 1], 1 / C) as tf.Tensor3D,
      eps: tf.tensor1d([LAYER_NORM_EPS]),
    };
  });
}

/**
 * Keys and values of every layer. With the fused kernels, each is [B, H, contextLength, D] from the
 * start and a position is written in place; otherwise [B, H, positions so far, D], grown by concat
 * (tfjs has no in-place write, and on cpu or webgl a preallocated cache would be sliced, a copy, every step).
 */
export class DecodingCache {
  private keys: tf.Tensor4D[] = [];
  private values: tf.Tensor4D[] = [];
  private readonly weights: DecodingWeights;
  /** The fused kernels the backend had when the cache was made (looked up once, not per step). */
  private readonly fused: FusedChoice;
  length = 0;
  disposed = false;

  constructor(
    readonly owner: object,
    public batchSize: number,
    private readonly config: GPTConfig,
    modelWeights: ModelWeights,
  ) {
    this.weights = decodingWeights(modelWeights, config);
    this.fused = fusedChoice(config.nEmbd / config.nHead);
  }

  /** The preallocated cache of the fused path, made at the first step unless a prefill filled it (zeros cost a copy of the whole cache on wasm). */
  private preallocate(): void {
    const { nHead, contextLength, nEmbd, nLayer } = this.config;
    const shape: [number, number, number, number] = [this.batchSize, nHead, contextLength, nEmbd / nHead];
    this.keys = Array.from({ length: nLayer }, () => tf.zeros(shape));
    this.values = Array.from({ length: nLayer }, () => tf.zeros(shape));
  }

  /** Feeds one (checked) token per sequence at position `length`: logits [B, V] and values [B] there. */
  advance(tokens: Int32Array): { logits: tf.Tensor2D; values: tf.Tensor1D } {
    const { nHead: H, nEmbd: C, vocabSize: V } = this.config;
    const B = this.batchSize;
    const D = C / H;
    const w = this.weights;
    const fused = this.fused;
    const geluOffset = GELU_A;
    if (fused.attention && this.keys.length === 0) this.preallocate();
    const out = tf.tidy(() => {
      const bias = fused.attention ? null : tf.tensor4d(alibiRow(H, this.length), [1, H, 1, this.length + 1]);
      const normalize = (x: tf.Tensor3D) =>
        fused.rmsNorm ? rmsNorm(x, LAYER_NORM_EPS) : (tf.mul(x, tf.rsqrt(fusedMatMul(tf.square(x), w.meanColumn, w.eps))) as tf.Tensor3D);
      const gelu = (hidden: tf.Tensor3D) =>
        fused.geluGate ? geluGate(hidden, geluOffset) : (tf.mul(hidden, tf.sigmoid(tf.mul(hidden, tf.add(tf.square(hidden), geluOffset)))) as tf.Tensor3D);
      const affine = (x: tf.Tensor3D, { w: weight, b }: Affine) => fusedMatMul(x, weight, b);
      const tokenIds = tf.tensor1d(tokens, 'int32');
      let x = fused.embedRows ? embedRows(w.wte, tokenIds) : (tf.gather(w.wte, tokenIds, 1) as tf.Tensor3D); // [1, B, C]
      const keys: tf.Tensor4D[] = [];
      const values: tf.Tensor4D[] = [];
      w.blocks.forEach((block, layer) => {
        const qkv = affine(normalize(x), block.qkv);
        let attended: tf.Tensor3D;
        if (fused.attention) {
          keys.push(writeHeads(qkv, this.keys[layer], H, QKV_PART.key, this.length));
          values.push(writeHeads(qkv, this.values[layer], H, QKV_PART.value, this.length));
          attended = alibiAttention(qkv, keys[layer], values[layer], H, this.length + 1);
        } else {
          const pastKeys = this.length === 0 ? null : this.keys[layer];
          const pastValues = this.length === 0 ? null : this.values[layer];
          const [q, k, v] = tf.split(qkv, 3, 2).map((t) => tf.reshape(t, [B, H, 1, D]) as tf.Tensor4D);
          keys.push(pastKeys ? tf.concat([pastKeys, k], 2) : k);
          values.push(pastValues ? tf.concat([pastValues, v], 2) : v);
          const weights = tf.softmax(tf.add(tf.matMul(q, keys[layer], false, true), bias!));
          attended = tf.reshape(tf.matMul(weights, values[layer]), [1, B, C]) as tf.Tensor3D;
        }
        x = tf.add(x, affine(attended, block.attnProj));
        x = tf.add(x, affine(gelu(affine(normalize(x), block.fc)), block.mlpProj));
      });
      const h = normalize(x);
      const logits = tf.reshape(affine(h, w.policyHead), [B, V]) as tf.Tensor2D;
      return { logits, estimates: tf.reshape(affine(h, w.valueHead), [B]) as tf.Tensor1D, keys, values };
    });
    this.releaseCache();
    this.keys = out.keys;
    this.values = out.values;
    this.length++;
    return { logits: out.logits, values: out.estimates };
  }

  /**
   * Takes a prefill's keys and values, [B, H, L, D] per layer, as the first L positions of this empty
   * cache (padded to the context length where the cache is preallocated). Takes ownership of them.
   */
  fill(keys: tf.Tensor4D[], values: tf.Tensor4D[]): void {
    const L = keys[0].shape[2];
    if (this.fused.attention) {
      const padding: [number, number][] = [[0, 0], [0, 0], [0, this.config.contextLength - L], [0, 0]];
      const padded = tf.tidy(() => ({ keys: keys.map((k) => tf.pad(k, padding)), values: values.map((v) => tf.pad(v, padding)) }));
      tf.dispose([...keys, ...values]);
      ({ keys, values } = padded);
    }
    this.releaseCache();
    this.keys = keys;
    this.values = values;
    this.length = L;
  }

  keepRows(rows: readonly number[]): void {
    const B = this.batchSize;
    if (rows.length === 0) throw new Error('keepRows needs at least one row');
    rows.forEach((row, i) => {
      if (!Number.isInteger(row) || row < 0 || row >= B || (i > 0 && row <= rows[i - 1])) {
        throw new Error(`keepRows wants ascending row indices in [0, ${B}), got [${rows.join(', ')}]`);
      }
    });
    if (rows.length === B) return;
    if (this.keys.length > 0) {
      const kept = tf.tidy(() => {
        const index = tf.tensor1d(Array.from(rows), 'int32');
        const keep = <T extends tf.Tensor>(t: T): T => (this.fused.gatherRows ? gatherRows(t, index) : tf.gather(t, index, 0));
        return { keys: this.keys.map(keep), values: this.values.map(keep) };
      });
      this.releaseCache();
      this.keys = kept.keys;
      this.values = kept.values;
    }
    this.batchSize = rows.length;
  }

  dispose(): void {
    this.releaseCache();
    tf.dispose(this.weights);
    this.disposed = true;
  }

  private releaseCache(): void {
    tf.dispose([...this.keys, ...this.values]);
    this.keys = [];
    this.values = [];
  }
}

/** Which fused kernels (fusedOps.ts) the step uses: each where the active backend has it. */
type FusedChoice = { rmsNorm: boolean; geluGate: boolean; attention: boolean; embedRows: boolean; gatherRows: boolean };

function fusedChoice(headDim: number): FusedChoice {
  // On wasm the kernels register when first used (usesWasmKernels); their attention sums 16 lanes of a
  // head in registers, where WebGPU's takes any width.
  const headsFit = tf.getBackend() !== 'wasm' || (usesWasmKernels() && headDim % ATTENTION_KERNEL_HEAD_MULTIPLE === 0);
  return {
    rmsNorm: hasFusedKernel(FUSED_KERNELS.rmsNorm),
    geluGate: hasFusedKernel(FUSED_KERNELS.geluGate),
    attention: hasFusedKernel(FUSED_KERNELS.writeHeads) && hasFusedKernel(FUSED_KERNELS.alibiAttention) && headsFit,
    embedRows: hasFusedKernel(FUSED_KERNELS.embedRows),
    gatherRows: hasFusedKernel(FUSED_KERNELS.gatherRows),
  };
}

/** a [1, M, K] @ b [1, K, N] + bias [N], calling the kernel directly: the fused.matMul op would
 * reshape a, b and the product around it (three more kernel calls) for its general shapes. */
function fusedMatMul(a: tf.Tensor3D, b: tf.Tensor3D, bias: tf.Tensor1D): tf.Tensor3D {
  const attrs = { transposeA: false, transposeB: false, activation: 'linear' };
  return tf.engine().runKernel(tf._FusedMatMul, { a, b, bias }, attrs) as tf.Tensor3D;
}

/** ALiBi's bias of query `position` against keys 0..position, [head, key] row-major (as attention.ts's alibiBias). */
function alibiRow(nHead: number, position: number): Float32Array {
  const slopes = alibiSlopes(nHead);
  const row = new Float32Array(nHead * (position + 1));
  for (let h = 0; h < nHead; h++) {
    for (let j = 0; j <= position; j++) row[h * (position + 1) + j] = -slopes[h] * (position - j);
  }
  return row;
}
