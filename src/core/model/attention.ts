/**
 * Causal self-attention with ALiBi, the model's only position signal, over whole sequences
 * (training; differentiable). One position against a KV cache is decoding.ts's, with the same
 * slopes, so the two agree up to float rounding.
 *
 * It takes the fused projection qkv [B, T, 3C] (q, k, v side by side, each C = H * D wide, heads
 * in order within each) and returns the heads' outputs side by side, [B, T, C].
 */
import * as tf from '@tensorflow/tfjs-core';
import { alibiSlopes } from './weights';
import { ATTENTION_KERNEL_HEAD_MULTIPLE, causalAttentionGradKernel, causalAttentionKernel, usesWasmKernels } from './wasmKernels';

/** Far below any score, so softmax gives future keys exactly 0 (a finite value keeps gradients NaN-free). */
const MASKED = -1e9;

/**
 * The additive attention bias [query i, head h, key j] for positions below `length`: -slope_h * (i - j)
 * for j <= i, MASKED for j > i (causal).
 */
export function alibiBias(nHead: number, length: number): tf.Tensor3D {
  const slopes = alibiSlopes(nHead);
  const bias = new Float32Array(length * nHead * length);
  for (let i = 0; i < length; i++) {
    for (let h = 0; h < nHead; h++) {
      for (let j = 0; j < length; j++) bias[(i * nHead + h) * length + j] = j <= i ? -slopes[h] * (i - j) : MASKED;
    }
  }
  return tf.tensor3d(bias, [length, nHead, length]);
}

// ---------------------------------------------------------------------------------------------
// Whole sequences

/**
 * For each channel n: out[:, n, :] = a[:, :, n] @ b[:, n, :], with a [R, S, N] and b [S, N, P] -> [R, N, P].
 *
 * This is a batched matMul over N = B*H (sequence, head) pairs, written as a depthwise convolution:
 * channels are the pairs, the 1 x S window sums over the shared dimension, the channel multiplier is P.
 * tfjs-backend-wasm runs batched matMul in a naive loop, but this convolution in XNNPACK: 3-5x faster
 * for attention's shapes (measured, B=32 T=128 H=4 D=16).
 */
function channelMatMul(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const [R, S, N] = a.shape;
  const P = b.shape[2];
  const out = tf.depthwiseConv2d(tf.reshape(a, [1, R, S, N]) as tf.Tensor4D, tf.reshape(b, [1, S, N, P]) as tf.Tensor4D, 1, 'valid');
  return tf.reshape(out, [R, N, P]);
}

/** [B, T, H, D] in the layouts channelMatMul needs, with N = B*H channels last or in the middle. */
const asTDN = (x: tf.Tensor4D) => merge(tf.transpose(x, [1, 3, 0, 2]), 'last'); // [T, D, N]
const asDTN = (x: tf.Tensor4D) => merge(tf.transpose(x, [3, 1, 0, 2]), 'last'); // [D, T, N]
const asDNT = (x: tf.Tensor4D) => merge(tf.transpose(x, [3, 0, 2, 1]), 'middle'); // [D, N, T]

function merge(x: tf.Tensor, where: 'last' | 'middle'): tf.Tensor3D {
  const [a, b, c, d] = x.shape;
  return tf.reshape(x, where === 'last' ? [a, b, c * d] : [a, b * c, d]);
}

/** [D, N, T] back to [B, T, H, D]. */
function fromDNT(x: tf.Tensor3D, B: number, H: number): tf.Tensor4D {
  const [D, , T] = x.shape;
  return tf.transpose(tf.reshape(x, [D, B, H, T]), [1, 3, 2, 0]);
}

/** qkv [B, T, 3C] as q, k, v [B, T, H, D], q scaled by 1/sqrt(D). */
function splitHeads(qkv: tf.Tensor3D, nHead: number): tf.Tensor4D[] {
  const [B, T, threeC] = qkv.shape;
  const headDim = threeC / 3 / nHead;
  const [q, k, v] = tf.split(qkv, 3, -1).map((t) => tf.reshape(t, [B, T, nHead, headDim]) as tf.Tensor4D);
  return [tf.mul(q, 1 / Math.sqrt(headDim)), k, v];
}

/** The keys and values of qkv [B, T, 3C] as a KV cache holds them, [B, H, T, D] each (a prefill's). */
export function cacheHeads(qkv: tf.Tensor3D, nHead: number): { keys: tf.Tensor4D; values: tf.Tensor4D } {
  const [, k, v] = splitHeads(qkv, nHead);
  return { keys: tf.transpose(k, [0, 2, 1, 3]), values: tf.transpose(v, [0, 2, 1, 3]) };
}

/**
 * Causal ALiBi attention over whole sequences, qkv [B, T, 3C] -> [B, T, C], differentiable. The
 * attention weights live as [query i, pair n, key j], so softmax runs over the last axis. The gradient
 * is written out (softmax backward and four channel products): tfjs has none for a convolution's filter.
 */
export function causalAttention(qkv: tf.Tensor3D, nHead: number, bias: tf.Tensor3D): tf.Tensor3D {
  const [B, T, threeC] = qkv.shape;
  const H = nHead;
  const D = threeC / 3 / H;
  if (D % ATTENTION_KERNEL_HEAD_MULTIPLE === 0 && usesWasmKernels()) return kernelAttention(qkv, H);
  const merged = (heads: tf.Tensor4D) => tf.reshape(heads, [B, T, threeC / 3]);
  const attend = tf.customGrad((input, save) => {
    const [q, k, v] = splitHeads(input as tf.Tensor3D, H);
    const scores = channelMatMul(asTDN(q), asDNT(k)); // [T, N, T]
    const biasHere = tf.reshape(tf.slice(bias, [0, 0, 0], [T, H, T]), [T, 1, H, T]);
    const weights = tf.reshape(tf.softmax(tf.add(tf.reshape(scores, [T, B, H, T]), biasHere)), [T, B * H, T]) as tf.Tensor3D;
    (save as tf.GradSaveFunc)([q, k, v, weights]);
    const out = channelMatMul(asDTN(v), tf.transpose(weights, [2, 1, 0]) as tf.Tensor3D); // [D, N, T]
    return {
      value: merged(fromDNT(out, B, H)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [savedQ, savedK, savedV] = saved.slice(0, 3) as tf.Tensor4D[];
        const savedWeights = saved[3] as tf.Tensor3D;
        // out = W v and W = softmax(q k^T + bias): dW = dOut v^T, dS = W (dW - rowsum(dW W)),
        // dq = dS k, dk = dS^T q, dv = W^T dOut (per pair n; channelMatMul's layouts say which is which)
        const dOut = tf.reshape(dy, savedQ.shape) as tf.Tensor4D;
        const dWeights = channelMatMul(asTDN(dOut), asDNT(savedV)); // [T, N, T]
        const dScores = tf.mul(savedWeights, tf.sub(dWeights, tf.sum(tf.mul(dWeights, savedWeights), -1, true))) as tf.Tensor3D;
        const dq = fromDNT(channelMatMul(asDTN(savedK), tf.transpose(dScores, [2, 1, 0]) as tf.Tensor3D), B, H);
        const dk = fromDNT(channelMatMul(asDTN(savedQ), dScores), B, H);
        const dv = fromDNT(channelMatMul(asDTN(dOut), savedWeights), B, H);
        const scale = 1 / Math.sqrt(savedQ.shape[3]);
        return tf.concat([merged(tf.mul(dq, scale)), merged(dk), merged(dv)], -1);
      },
    };
  });
  return attend(qkv) as tf.Tensor3D;
}

/**
 * The same attention as one wasm kernel each way (wasmKernels.ts): it reads qkv in place of the
 * splits and transposes, and skips the keys after each query instead of masking them.
 */
function kernelAttention(qkv: tf.Tensor3D, nHead: number): tf.Tensor3D {
  const attend = tf.customGrad((input, save) => {
    const x = input as tf.Tensor3D;
    const slopes = tf.tensor1d(alibiSlopes(nHead));
    const { out, rows } = causalAttentionKernel(x, slopes, nHead);
    (save as tf.GradSaveFunc)([x, slopes, out, rows]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, [savedQkv, savedSlopes, savedOut, savedRows]: tf.Tensor[]) =>
        causalAttentionGradKernel(savedQkv as tf.Tensor3D, savedSlopes as tf.Tensor1D, savedOut as tf.Tensor3D, savedRows as tf.Tensor4D, dy as tf.Tensor3D),
    };
  });
  return attend(qkv) as tf.Tensor3D;
}
