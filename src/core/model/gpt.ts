/**
 * A tiny decoder-only, character-level GPT in tfjs-core, read top to bottom like nanoGPT's model.py:
 * the weights' init (their shapes and the layers' constants are in weights.ts), the layers (LayerNorm,
 * embedding, linear, GELU; the ALiBi attention core is in attention.ts, the KV cache in decoding.ts),
 * MLP, block, and the GPT with a policy head (logits) and a value head (PPO's critic).
 *
 * `forward` is the full causal pass used in training (differentiable); `step` feeds one token per
 * sequence to a batch of sequences through a KV cache (decoding.ts), computing the same function from
 * weights rearranged for few kernels per token, so the two agree up to float rounding; `prefill` fills
 * an empty cache with a stretch of positions (the prompts) in one causal pass.
 *
 * Training needs tfjs's gradients registered, which tfjs-core alone does not do: the entry point (worker,
 * test, CLI) registers them as it picks the backend ('@tensorflow/tfjs-core/dist/register_all_gradients'
 * under a bundler, the @tensorflow/tfjs union package in plain Node, where that ESM tree fails to resolve).
 */
import * as tf from '@tensorflow/tfjs-core';
import { Random } from '../random';
import { alibiBias, cacheHeads, causalAttention } from './attention';
import { GPTConfig, validateGPTConfig } from './config';
import { DecodingCache } from './decoding';
import { columnSumsKernel, geluGradKernel, geluKernel, layerNormGradKernel, layerNormKernel, usesWasmKernels } from './wasmKernels';
import { GELU_CUBIC, GELU_SCALE, LAYER_NORM_EPS, type BlockWeights, type LayerNormWeights, type Linear, type ModelWeights } from './weights';

// ---------------------------------------------------------------------------------------------
// Weights

/** GPT-2 init (as in nanoGPT): N(0, 0.02), residual projections N(0, 0.02 / sqrt(2 nLayer)). */
type WeightInit = 'normal' | 'residual' | 'zeros' | 'ones';

export interface WeightSpec {
  name: string;
  shape: number[];
  init: WeightInit;
}

const INIT_STD = 0.02;

/** Every weight of a model with this config, in the stable order of namedWeights() and checkpoints. */
export function weightSpecs(config: GPTConfig): WeightSpec[] {
  const { vocabSize: V, nEmbd: C } = config;
  const hidden = C * config.mlpRatio;
  const specs: WeightSpec[] = [{ name: 'wte', shape: [V, C], init: 'normal' }];
  for (let l = 0; l < config.nLayer; l++) {
    const p = `h.${l}.`;
    specs.push(
      { name: `${p}ln1.gamma`, shape: [C], init: 'ones' },
      { name: `${p}ln1.beta`, shape: [C], init: 'zeros' },
      { name: `${p}attn.qkv.w`, shape: [C, 3 * C], init: 'normal' },
      { name: `${p}attn.qkv.b`, shape: [3 * C], init: 'zeros' },
      { name: `${p}attn.proj.w`, shape: [C, C], init: 'residual' },
      { name: `${p}attn.proj.b`, shape: [C], init: 'zeros' },
      { name: `${p}ln2.gamma`, shape: [C], init: 'ones' },
      { name: `${p}ln2.beta`, shape: [C], init: 'zeros' },
      { name: `${p}mlp.fc.w`, shape: [C, hidden], init: 'normal' },
      { name: `${p}mlp.fc.b`, shape: [hidden], init: 'zeros' },
      { name: `${p}mlp.proj.w`, shape: [hidden, C], init: 'residual' },
      { name: `${p}mlp.proj.b`, shape: [C], init: 'zeros' },
    );
  }
  specs.push(
    { name: 'lnF.gamma', shape: [C], init: 'ones' },
    { name: 'lnF.beta', shape: [C], init: 'zeros' },
    // Untied from wte: with 99 characters tying would save only V*C (6k) weights, and a separate
    // head lets RL reshape the output distribution without moving the input embedding every layer reads.
    { name: 'policyHead.w', shape: [C, V], init: 'normal' },
    // Zero, so the critic starts by predicting 0 for every state instead of noise.
    { name: 'valueHead.w', shape: [C, 1], init: 'zeros' },
    { name: 'valueHead.b', shape: [1], init: 'zeros' },
  );
  return specs;
}

function initialValues(spec: WeightSpec, nLayer: number, rng: Random): Float32Array {
  const values = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
  if (spec.init === 'ones') values.fill(1);
  if (spec.init === 'normal' || spec.init === 'residual') {
    const std = spec.init === 'normal' ? INIT_STD : INIT_STD / Math.sqrt(2 * nLayer);
    for (let i = 0; i < values.length; i++) values[i] = std * rng.normal();
  }
  return values;
}

function structure(config: GPTConfig, named: Map<string, tf.Variable>): ModelWeights {
  const get = (name: string) => named.get(name)!;
  const linear = (p: string): Linear => ({ w: get(`${p}.w`), b: get(`${p}.b`) });
  const norm = (p: string): LayerNormWeights => ({ gamma: get(`${p}.gamma`), beta: get(`${p}.beta`) });
  const blocks: BlockWeights[] = [];
  for (let l = 0; l < config.nLayer; l++) {
    const p = `h.${l}.`;
    blocks.push({
      ln1: norm(`${p}ln1`),
      qkv: linear(`${p}attn.qkv`),
      attnProj: linear(`${p}attn.proj`),
      ln2: norm(`${p}ln2`),
      fc: linear(`${p}mlp.fc`),
      mlpProj: linear(`${p}mlp.proj`),
    });
  }
  return { wte: get('wte'), blocks, lnF: norm('lnF'), policyHead: get('policyHead.w'), valueHead: linear('valueHead') };
}

// ---------------------------------------------------------------------------------------------
// Layers
//
// Each layer is one tf.customGrad op with its gradient written out, which on tfjs-backend-wasm is much
// faster than tfjs's automatic one: that multiplies with transposed operands, which wasm runs in a naive
// loop ~15x slower (measured) than the XNNPACK path of a plain 2-D product, and its tape copies the
// inputs of every small op (an Identity kernel per tensor kept) for the backward pass.

/** Column sums of t [rows, cols] -> [cols]: on wasm by this project's kernel, elsewhere as ones @ t (wasm's own
 * sum over axis 0 transposes first, ~15x slower; ones @ t packs all of t as a matrix operand each call). */
function sumRows(t: tf.Tensor): tf.Tensor1D {
  const cols = t.shape[t.rank - 1];
  const t2d = tf.reshape(t, [-1, cols]) as tf.Tensor2D;
  if (usesWasmKernels()) return columnSumsKernel(t2d);
  return tf.reshape(tf.matMul(tf.ones([1, t2d.shape[0]]), t2d), [cols]);
}

/** LayerNorm over the last axis: x [..., C], gamma and beta [C]. */
const layerNormOp = tf.customGrad((x, gamma, beta, save) => {
  const centered = tf.sub(x as tf.Tensor, tf.mean(x as tf.Tensor, -1, true));
  const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(centered), -1, true), LAYER_NORM_EPS));
  const normalized = tf.mul(centered, rstd);
  (save as tf.GradSaveFunc)([normalized, rstd, gamma as tf.Tensor]);
  return {
    value: tf.add(tf.mul(normalized, gamma as tf.Tensor), beta as tf.Tensor),
    gradFunc: (dy: tf.Tensor, [xHat, savedRstd, savedGamma]: tf.Tensor[]) => {
      const dxHat = tf.mul(dy, savedGamma);
      const dx = tf.mul(
        savedRstd,
        tf.sub(tf.sub(dxHat, tf.mean(dxHat, -1, true)), tf.mul(xHat, tf.mean(tf.mul(dxHat, xHat), -1, true))),
      );
      return [dx, sumRows(tf.mul(dy, xHat)), sumRows(dy)];
    },
  };
});

/** The same LayerNorm as one wasm kernel each way (wasmKernels.ts), for tfjs's nine kernels forward and fourteen back. */
const kernelLayerNormOp = tf.customGrad((x, gamma, beta, save) => {
  const { y, normalized, rstd } = layerNormKernel(x as tf.Tensor, gamma as tf.Tensor, beta as tf.Tensor, LAYER_NORM_EPS);
  (save as tf.GradSaveFunc)([normalized, rstd, gamma as tf.Tensor]);
  return {
    value: y,
    gradFunc: (dy: tf.Tensor, [xHat, savedRstd, savedGamma]: tf.Tensor[]) => layerNormGradKernel(dy, xHat, savedRstd, savedGamma),
  };
});

function layerNorm(x: tf.Tensor3D, w: LayerNormWeights): tf.Tensor3D {
  const op = x.shape[2] % 4 === 0 && usesWasmKernels() ? kernelLayerNormOp : layerNormOp;
  return op(x, w.gamma, w.beta) as tf.Tensor3D;
}

/** Rows of the embedding table for tokens [B, T] -> [B, T, C], as a one-hot matMul because
 * tfjs-backend-wasm has no kernel for gather's gradient. Only the table gets a gradient. */
function embed(tokens: tf.Tensor2D, table: tf.Variable): tf.Tensor3D {
  const [B, T] = tokens.shape;
  const [V, C] = table.shape;
  // wasm's OneHot ignores a float32 dtype argument (it writes int32 bits), hence the cast
  const oneHot = tf.cast(tf.oneHot(tf.reshape(tokens, [B * T]), V), 'float32') as tf.Tensor2D;
  const lookUp = tf.customGrad((t, save) => {
    (save as tf.GradSaveFunc)([oneHot]);
    return {
      value: tf.reshape(tf.matMul(oneHot, t as tf.Tensor2D), [B, T, C]),
      gradFunc: (dy: tf.Tensor, [savedOneHot]: tf.Tensor[]) =>
        tf.matMul(tf.transpose(savedOneHot), tf.reshape(dy, [B * T, C]) as tf.Tensor2D),
    };
  });
  return lookUp(table) as tf.Tensor3D;
}

/** a [M, K] @ b [K, N]. */
const matMul2d = tf.customGrad((a, b, save) => {
  (save as tf.GradSaveFunc)([a as tf.Tensor, b as tf.Tensor]);
  return {
    value: tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor, [savedA, savedB]: tf.Tensor[]) => [
      tf.matMul(dy as tf.Tensor2D, tf.transpose(savedB)),
      tf.matMul(tf.transpose(savedA), dy as tf.Tensor2D),
    ],
  };
});

/** x [B, T, in] -> x w + b [B, T, out], in one fused kernel. */
const linearOp = tf.customGrad((x, w, b, save) => {
  const input = x as tf.Tensor3D;
  const weight = w as tf.Tensor2D;
  const [B, T, inWidth] = input.shape;
  const outWidth = weight.shape[1];
  const x2d = tf.reshape(input, [B * T, inWidth]) as tf.Tensor2D;
  (save as tf.GradSaveFunc)([x2d, weight]);
  const y = tf.fused.matMul({ a: x2d, b: weight, bias: b as tf.Tensor1D });
  return {
    value: tf.reshape(y, [B, T, outWidth]),
    gradFunc: (dy: tf.Tensor, [savedX, savedW]: tf.Tensor[]) => {
      const dy2d = tf.reshape(dy, [B * T, outWidth]) as tf.Tensor2D;
      return [
        tf.reshape(tf.matMul(dy2d, tf.transpose(savedW)), [B, T, inWidth]),
        tf.matMul(tf.transpose(savedX), dy2d),
        sumRows(dy2d),
      ];
    },
  };
});

function linear(x: tf.Tensor3D, w: Linear): tf.Tensor3D {
  return linearOp(x, w.w, w.b) as tf.Tensor3D;
}


/** GELU in GPT-2's tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as x sigmoid(...). */
const tfjsGeluOp = tf.customGrad((x, save) => {
  const input = x as tf.Tensor;
  (save as tf.GradSaveFunc)([input]);
  const gate = (t: tf.Tensor) => tf.sigmoid(tf.mul(tf.add(t, tf.mul(tf.mul(tf.square(t), t), GELU_CUBIC)), GELU_SCALE));
  return {
    value: tf.mul(input, gate(input)),
    gradFunc: (dy: tf.Tensor, [savedX]: tf.Tensor[]) => {
      const g = gate(savedX);
      const dz = tf.mul(tf.add(tf.mul(tf.square(savedX), 3 * GELU_CUBIC), 1), GELU_SCALE);
      return tf.mul(dy, tf.add(g, tf.mul(tf.mul(savedX, tf.mul(g, tf.sub(1, g))), dz)));
    },
  };
});

/** The same GELU as one wasm kernel each way (wasmKernels.ts), for the tfjs ops' ten memory-bound passes. */
const kernelGeluOp = tf.customGrad((x, save) => {
  const input = x as tf.Tensor;
  (save as tf.GradSaveFunc)([input]);
  return {
    value: geluKernel(input, GELU_SCALE, GELU_CUBIC),
    gradFunc: (dy: tf.Tensor, [savedX]: tf.Tensor[]) => geluGradKernel(savedX, dy, GELU_SCALE, GELU_CUBIC),
  };
});

function gelu(x: tf.Tensor3D): tf.Tensor3D {
  return (usesWasmKernels() ? kernelGeluOp(x) : tfjsGeluOp(x)) as tf.Tensor3D;
}

/** Each layer's keys and values [B, H, T, D], collected by a prefill's pass. */
type CacheHeads = { keys: tf.Tensor4D[]; values: tf.Tensor4D[] };

function selfAttention(x: tf.Tensor3D, w: BlockWeights, nHead: number, bias: tf.Tensor3D, collected?: CacheHeads): tf.Tensor3D {
  const qkv = linear(x, w.qkv);
  if (collected) {
    const { keys, values } = cacheHeads(qkv, nHead);
    collected.keys.push(keys);
    collected.values.push(values);
  }
  return linear(causalAttention(qkv, nHead, bias), w.attnProj);
}

function mlp(x: tf.Tensor3D, w: BlockWeights): tf.Tensor3D {
  return linear(gelu(linear(x, w.fc)), w.mlpProj);
}

/** Pre-LayerNorm transformer block. */
function block(x: tf.Tensor3D, w: BlockWeights, nHead: number, bias: tf.Tensor3D, collected?: CacheHeads): tf.Tensor3D {
  const h = tf.add<tf.Tensor3D>(x, selfAttention(layerNorm(x, w.ln1), w, nHead, bias, collected));
  return tf.add(h, mlp(layerNorm(h, w.ln2), w));
}

// ---------------------------------------------------------------------------------------------
// The model

/** Keys and values of every layer for `batchSize` sequences decoded together. */
export interface KVCache {
  readonly batchSize: number;
  /** Positions already fed; the next `step` writes position `length`. */
  readonly length: number;
  /**
   * Keeps only these rows (indices into the current batch, ascending, no repeats): later steps take
   * one token per kept row, in this order. Rollouts drop finished sequences this way, since a token
   * step costs in proportion to its rows.
   */
  keepRows(rows: readonly number[]): void;
  dispose(): void;
}

export class GPT {
  readonly config: GPTConfig;
  private readonly named: { name: string; tensor: tf.Variable }[];
  private readonly weights: ModelWeights;
  private readonly bias: tf.Tensor3D;

  /** `initial` holds one array or tensor per weightSpecs entry, already checked. */
  private constructor(config: GPTConfig, initial: (Float32Array | tf.Tensor)[]) {
    this.config = config;
    const specs = weightSpecs(config);
    this.named = tf.tidy(() =>
      specs.map((spec, i) => {
        const value = initial[i];
        return { name: spec.name, tensor: tf.variable(value instanceof tf.Tensor ? value : tf.tensor(value, spec.shape)) };
      }),
    );
    this.weights = structure(config, new Map(this.named.map(({ name, tensor }) => [name, tensor])));
    this.bias = alibiBias(config.nHead, config.contextLength);
  }

  /** A fresh model; the same config and seed always give the same weights, on every backend. */
  static init(config: GPTConfig, seed: number): GPT {
    const checked = validateGPTConfig(config);
    const rng = new Random(seed);
    return new GPT(checked, weightSpecs(checked).map((spec) => initialValues(spec, checked.nLayer, rng)));
  }

  /** A model from given weights (by name, as in namedWeights()); throws on a missing, extra or misshapen weight. */
  static fromWeights(config: GPTConfig, weights: Record<string, Float32Array>): GPT {
    const checked = validateGPTConfig(config);
    const specs = weightSpecs(checked);
    const expected = new Set(specs.map((s) => s.name));
    for (const name of Object.keys(weights)) {
      if (!expected.has(name)) throw new Error(`unexpected weight "${name}" for this config`);
    }
    const arrays = specs.map((spec) => {
      const values = weights[spec.name];
      if (values === undefined) throw new Error(`weight "${spec.name}" is missing`);
      const size = spec.shape.reduce((a, b) => a * b, 1);
      if (values.length !== size) {
        throw new Error(`weight "${spec.name}" has ${values.length} values, expected ${size} (shape [${spec.shape}])`);
      }
      return values;
    });
    return new GPT(checked, arrays);
  }

  /** Full causal pass, differentiable (use inside optimizer.minimize / tf.variableGrads). tokens int32 [B, T], T <= contextLength. */
  forward(tokens: tf.Tensor2D): { logits: tf.Tensor3D; values: tf.Tensor2D } {
    if (tokens.rank !== 2 || tokens.dtype !== 'int32') {
      throw new Error(`forward wants int32 tokens [B, T], got ${tokens.dtype} [${tokens.shape}]`);
    }
    const T = tokens.shape[1];
    if (T < 1 || T > this.config.contextLength) {
      throw new Error(`forward got ${T} positions; the model takes 1 to contextLength (${this.config.contextLength})`);
    }
    return tf.tidy(() => this.heads(this.blocks(embed(tokens, this.weights.wte))));
  }

  /** A KV cache for batched incremental decoding of `batchSize` sequences, with the weights as they are now. */
  newCache(batchSize: number): KVCache {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`cache batch size must be a positive integer, got ${batchSize}`);
    return new DecodingCache(this, batchSize, this.config, this.weights);
  }

  /**
   * Feeds one token per sequence at the cache's next position; returns logits [B, V] and values [B] at
   * that position. Caller disposes the returned tensors. Throws when the cache is full (contextLength).
   */
  step(cache: KVCache, tokens: Int32Array): { logits: tf.Tensor2D; values: tf.Tensor1D } {
    this.checkCache(cache, 'step');
    if (tokens.length !== cache.batchSize) {
      throw new Error(`step got ${tokens.length} tokens for a cache of batch size ${cache.batchSize}`);
    }
    if (cache.length >= this.config.contextLength) {
      throw new Error(`KV cache is full: it holds contextLength (${this.config.contextLength}) positions`);
    }
    const V = this.config.vocabSize;
    for (const token of tokens) {
      if (token < 0 || token >= V) throw new Error(`step got token ${token}, outside the vocabulary [0, ${V})`);
    }
    return cache.advance(tokens);
  }

  /**
   * Feeds the first L positions of every sequence into an empty cache in one causal pass (`rows`: B
   * rows of L tokens), as L calls of `step` would, up to float rounding; returns logits [B, V] and
   * values [B] at the last of them. A token step costs kernel launches whatever its rows hold, so a
   * stretch known in advance (the prompts) goes in once. Caller disposes the returned tensors.
   */
  prefill(cache: KVCache, rows: readonly Int32Array[]): { logits: tf.Tensor2D; values: tf.Tensor1D } {
    this.checkCache(cache, 'prefill');
    if (cache.length !== 0) throw new Error(`prefill wants an empty cache, got one holding ${cache.length} positions`);
    if (rows.length !== cache.batchSize) throw new Error(`prefill got ${rows.length} rows for a cache of batch size ${cache.batchSize}`);
    const L = rows[0].length;
    if (L < 1 || L > this.config.contextLength || rows.some((row) => row.length !== L)) {
      throw new Error(`prefill wants rows of one length from 1 to contextLength (${this.config.contextLength}), got lengths [${rows.map((r) => r.length)}]`);
    }
    const { vocabSize: V, nEmbd: C } = this.config;
    for (const row of rows) {
      for (const token of row) if (token < 0 || token >= V) throw new Error(`prefill got token ${token}, outside the vocabulary [0, ${V})`);
    }
    const B = rows.length;
    const out = tf.tidy(() => {
      const flat = new Int32Array(B * L);
      rows.forEach((row, b) => flat.set(row, b * L));
      const collected: CacheHeads = { keys: [], values: [] };
      const x = this.blocks(embed(tf.tensor2d(flat, [B, L], 'int32'), this.weights.wte), collected);
      const { logits, values } = this.heads(tf.slice(x, [0, L - 1, 0], [B, 1, C]));
      return { logits: tf.reshape(logits, [B, V]) as tf.Tensor2D, values: tf.reshape(values, [B]) as tf.Tensor1D, collected };
    });
    cache.fill(out.collected.keys, out.collected.values);
    return { logits: out.logits, values: out.values };
  }

  private checkCache(cache: KVCache, caller: string): asserts cache is DecodingCache {
    if (!(cache instanceof DecodingCache) || cache.owner !== this) throw new Error(`${caller} got a cache made by another model`);
    if (cache.disposed) throw new Error(`${caller} got a disposed cache`);
  }

  /** Embedded tokens x [B, T, C] through the blocks; `collected` gathers each layer's keys and values. */
  private blocks(x: tf.Tensor3D, collected?: CacheHeads): tf.Tensor3D {
    for (const w of this.weights.blocks) x = block(x, w, this.config.nHead, this.bias, collected);
    return x;
  }

  /** The final LayerNorm and both heads over x [B, T, C]. */
  private heads(x: tf.Tensor3D): { logits: tf.Tensor3D; values: tf.Tensor2D } {
    const [B, T, C] = x.shape;
    const h = tf.reshape(layerNorm(x, this.weights.lnF), [B * T, C]) as tf.Tensor2D;
    const logits = tf.reshape(matMul2d(h, this.weights.policyHead), [B, T, this.config.vocabSize]) as tf.Tensor3D;
    const values = tf.reshape(tf.add(matMul2d(h, this.weights.valueHead.w), this.weights.valueHead.b), [B, T]) as tf.Tensor2D;
    return { logits, values };
  }

  /** All weights, in a stable order. */
  trainableVariables(): tf.Variable[] {
    return this.named.map(({ tensor }) => tensor);
  }

  /** Weights with their names, in the order of weightSpecs (checkpoints store this order). */
  namedWeights(): { name: string; tensor: tf.Variable }[] {
    return this.named.map(({ name, tensor }) => ({ name, tensor }));
  }

  parameterCount(): number {
    return this.named.reduce((sum, { tensor }) => sum + tensor.size, 0);
  }

  /** A deep copy with its own variables (e.g. the frozen reference policy for the KL term). */
  copy(): GPT {
    // Variables made from tensors share their (immutable) data; assign() on either gives it new data.
    return new GPT({ ...this.config }, this.named.map(({ tensor }) => tensor));
  }

  /** Frees the weights; caches made by this model must be disposed by their holder. */
  dispose(): void {
    for (const { tensor } of this.named) tensor.dispose();
    this.bias.dispose();
  }
}
