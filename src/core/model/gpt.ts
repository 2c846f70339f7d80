/**
 * A tiny decoder-only, character-level GPT in tfjs-core, read top to bottom like nanoGPT's model.py:
 * the weights and their init, LayerNorm, ALiBi attention with its KV cache, MLP, block, and the GPT
 * with a policy head (logits) and a value head (PPO's critic).
 *
 * `forward` is the full causal pass used in training (differentiable); `step` feeds one token per
 * sequence to a batch of sequences through a KV cache. Both run the same block code, the step with
 * T = 1 and the cached keys and values, so the two agree up to float rounding.
 *
 * Training needs tfjs's gradients registered, which tfjs-core alone does not do: the entry point (worker,
 * test, CLI) imports '@tensorflow/tfjs-core/dist/register_all_gradients' or its equivalent, as it picks
 * the backend. This file cannot: under tsx in Node that ESM tree fails to resolve.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Random } from '../random';
import { GPTConfig, validateGPTConfig } from './config';

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

interface Linear {
  w: tf.Variable;
  b: tf.Variable;
}
interface LayerNormWeights {
  gamma: tf.Variable;
  beta: tf.Variable;
}
interface BlockWeights {
  ln1: LayerNormWeights;
  qkv: Linear;
  attnProj: Linear;
  ln2: LayerNormWeights;
  fc: Linear;
  mlpProj: Linear;
}
interface ModelWeights {
  wte: tf.Variable;
  blocks: BlockWeights[];
  lnF: LayerNormWeights;
  policyHead: tf.Variable;
  valueHead: Linear;
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

const LAYER_NORM_EPS = 1e-5;

function layerNorm(x: tf.Tensor, w: LayerNormWeights): tf.Tensor {
  const centered = tf.sub(x, tf.mean(x, -1, true));
  const variance = tf.mean(tf.square(centered), -1, true);
  return tf.add(tf.mul(tf.mul(centered, tf.rsqrt(tf.add(variance, LAYER_NORM_EPS))), w.gamma), w.beta);
}

// tfjs's own MatMul gradient multiplies with transposed operands, which tfjs-backend-wasm runs in a
// naive loop ~15x slower (measured) than the XNNPACK path it takes for a plain 2-D product. The two
// ops below have hand-written gradients in which every product is plain, transposing explicitly.

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
        tf.sum(dy2d, 0),
      ];
    },
  };
});

function linear(x: tf.Tensor3D, w: Linear): tf.Tensor3D {
  return linearOp(x, w.w, w.b) as tf.Tensor3D;
}

/** Exact GELU, 0.5 x (1 + erf(x / sqrt 2)): erf is one wasm kernel, fewer ops than the tanh form. */
function gelu(x: tf.Tensor): tf.Tensor {
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.erf(tf.mul(x, Math.SQRT1_2)), 1));
}

/** ALiBi head slopes 2^(-8 (h+1) / H) (Press et al., "Train Short, Test Long"). */
export function alibiSlopes(nHead: number): number[] {
  return Array.from({ length: nHead }, (_, h) => 2 ** ((-8 * (h + 1)) / nHead));
}

/** Far below any score, so softmax gives future keys exactly 0 (a finite value keeps gradients NaN-free). */
const MASKED = -1e9;

/**
 * The additive attention bias [H, L, L] for query i and key j: -slope_h * (i - j) for j <= i (ALiBi, the
 * only position signal in the model), MASKED for j > i (causal). Full pass and step slice the same tensor.
 */
function alibiCausalBias(nHead: number, length: number): tf.Tensor3D {
  const slopes = alibiSlopes(nHead);
  const bias = new Float32Array(nHead * length * length);
  for (let h = 0; h < nHead; h++) {
    for (let i = 0; i < length; i++) {
      for (let j = 0; j < length; j++) bias[(h * length + i) * length + j] = j <= i ? -slopes[h] * (i - j) : MASKED;
    }
  }
  return tf.tensor3d(bias, [nHead, length, length]);
}

/** One layer's cached keys and values, each [B, H, positions so far, headDim]. */
type LayerKV = { keys: tf.Tensor4D; values: tf.Tensor4D };

/**
 * Causal self-attention of x [B, T, C] at positions past..past+T-1, where `past` is the number of
 * positions already in `cached` (none in a full pass). Returns the output and the keys and values
 * through the last new position, which a step stores as the next cache.
 */
function causalSelfAttention(
  x: tf.Tensor3D,
  w: BlockWeights,
  nHead: number,
  bias: tf.Tensor3D,
  cached: LayerKV | null,
): { y: tf.Tensor3D; kv: LayerKV } {
  const [B, T, C] = x.shape;
  const headDim = C / nHead;
  const toHeads = (t: tf.Tensor) => tf.transpose(tf.reshape(t, [B, T, nHead, headDim]), [0, 2, 1, 3]) as tf.Tensor4D;
  const [q, k, v] = tf.split(linear(x, w.qkv), 3, -1).map(toHeads);
  const keys = cached ? tf.concat([cached.keys, k], 2) : k;
  const values = cached ? tf.concat([cached.values, v], 2) : v;
  const past = cached ? cached.keys.shape[2] : 0;
  const length = past + T;
  const scores = tf.add(
    tf.matMul(tf.mul(q, 1 / Math.sqrt(headDim)), keys, false, true), // [B, H, T, length]
    tf.slice(bias, [0, past, 0], [nHead, T, length]),
  );
  const heads = tf.matMul(tf.softmax(scores), values); // [B, H, T, headDim]
  const merged = tf.reshape(tf.transpose(heads, [0, 2, 1, 3]), [B, T, C]) as tf.Tensor3D;
  return { y: linear(merged, w.attnProj), kv: { keys, values } };
}

function mlp(x: tf.Tensor3D, w: BlockWeights): tf.Tensor3D {
  return linear(gelu(linear(x, w.fc)) as tf.Tensor3D, w.mlpProj);
}

/** Pre-LayerNorm transformer block. */
function block(
  x: tf.Tensor3D,
  w: BlockWeights,
  nHead: number,
  bias: tf.Tensor3D,
  cached: LayerKV | null,
): { out: tf.Tensor3D; kv: LayerKV } {
  const attention = causalSelfAttention(layerNorm(x, w.ln1) as tf.Tensor3D, w, nHead, bias, cached);
  const h = tf.add(x, attention.y);
  return { out: tf.add(h, mlp(layerNorm(h, w.ln2) as tf.Tensor3D, w)), kv: attention.kv };
}

// ---------------------------------------------------------------------------------------------
// The model

/** Keys and values of every layer for `batchSize` sequences decoded together. */
export interface KVCache {
  readonly batchSize: number;
  /** Positions already fed; the next `step` writes position `length`. */
  readonly length: number;
  dispose(): void;
}

class GPTKVCache implements KVCache {
  layers: LayerKV[] = [];
  disposed = false;

  constructor(
    readonly owner: GPT,
    readonly batchSize: number,
  ) {}

  get length(): number {
    return this.layers.length === 0 ? 0 : this.layers[0].keys.shape[2];
  }

  /** Grown by concat, one position per step (a later performance issue preallocates). */
  replace(layers: LayerKV[]): void {
    this.releaseTensors();
    this.layers = layers;
  }

  dispose(): void {
    this.releaseTensors();
    this.disposed = true;
  }

  private releaseTensors(): void {
    for (const { keys, values } of this.layers) {
      keys.dispose();
      values.dispose();
    }
    this.layers = [];
  }
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
    this.bias = alibiCausalBias(config.nHead, config.contextLength);
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
    const [B, T] = tokens.shape;
    if (T < 1 || T > this.config.contextLength) {
      throw new Error(`forward got ${T} positions; the model takes 1 to contextLength (${this.config.contextLength})`);
    }
    return tf.tidy(() => {
      const { vocabSize: V, nEmbd: C } = this.config;
      // Embedding as a one-hot matMul: tfjs-backend-wasm has no kernel for gather's gradient. The cast is
      // needed: wasm's OneHot ignores a float32 dtype argument and writes int32 bits.
      const oneHot = tf.cast(tf.oneHot(tf.reshape(tokens, [B * T]), V), 'float32');
      const x = tf.reshape(matMul2d(oneHot, this.weights.wte), [B, T, C]) as tf.Tensor3D;
      const { logits, values } = this.run(x, null);
      return { logits, values };
    });
  }

  /** A KV cache for batched incremental decoding of `batchSize` sequences. */
  newCache(batchSize: number): KVCache {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`cache batch size must be a positive integer, got ${batchSize}`);
    return new GPTKVCache(this, batchSize);
  }

  /**
   * Feeds one token per sequence at the cache's next position; returns logits [B, V] and values [B] at
   * that position. Caller disposes the returned tensors. Throws when the cache is full (contextLength).
   */
  step(cache: KVCache, tokens: Int32Array): { logits: tf.Tensor2D; values: tf.Tensor1D } {
    if (!(cache instanceof GPTKVCache) || cache.owner !== this) throw new Error('step got a cache made by another model');
    if (cache.disposed) throw new Error('step got a disposed cache');
    if (tokens.length !== cache.batchSize) {
      throw new Error(`step got ${tokens.length} tokens for a cache of batch size ${cache.batchSize}`);
    }
    if (cache.length >= this.config.contextLength) {
      throw new Error(`KV cache is full: it holds contextLength (${this.config.contextLength}) positions`);
    }
    const { vocabSize: V, nEmbd: C } = this.config;
    for (const token of tokens) {
      if (token < 0 || token >= V) throw new Error(`step got token ${token}, outside the vocabulary [0, ${V})`);
    }
    const B = cache.batchSize;
    const out = tf.tidy(() => {
      const x = tf.reshape(tf.gather(this.weights.wte, tf.tensor1d(tokens, 'int32')), [B, 1, C]) as tf.Tensor3D;
      const { logits, values, kv } = this.run(x, cache.layers.length > 0 ? cache.layers : null);
      return { logits: tf.reshape(logits, [B, V]) as tf.Tensor2D, values: tf.reshape(values, [B]) as tf.Tensor1D, kv };
    });
    cache.replace(out.kv);
    return { logits: out.logits, values: out.values };
  }

  /** Embedded tokens x [B, T, C] through the blocks and both heads. */
  private run(x: tf.Tensor3D, cached: LayerKV[] | null): { logits: tf.Tensor3D; values: tf.Tensor2D; kv: LayerKV[] } {
    const [B, T, C] = x.shape;
    const kv: LayerKV[] = [];
    this.weights.blocks.forEach((w, l) => {
      const result = block(x, w, this.config.nHead, this.bias, cached ? cached[l] : null);
      x = result.out;
      kv.push(result.kv);
    });
    const h = tf.reshape(layerNorm(x, this.weights.lnF), [B * T, C]);
    const logits = tf.reshape(matMul2d(h, this.weights.policyHead), [B, T, this.config.vocabSize]) as tf.Tensor3D;
    const values = tf.reshape(tf.add(matMul2d(h, this.weights.valueHead.w), this.weights.valueHead.b), [B, T]) as tf.Tensor2D;
    return { logits, values, kv };
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
