import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE_MODEL_CONFIG, GPTConfig } from '../src/core/model/config';
import { alibiSlopes } from '../src/core/model/weights';
import { GPT, weightSpecs } from '../src/core/model/gpt';
import { randomModel, randomTokens, randomWeights, tensorsLeftBy, TINY_CONFIG, useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

/** Reads a forward pass back as plain arrays. */
function forwardValues(model: GPT, tokens: Int32Array, batch: number, length: number) {
  return tf.tidy(() => {
    const { logits, values } = model.forward(tf.tensor2d(tokens, [batch, length], 'int32'));
    return { logits: logits.arraySync(), values: values.arraySync() };
  });
}

/** Feeds the same tokens one position at a time through a KV cache. */
function stepValues(model: GPT, tokens: Int32Array, batch: number, length: number) {
  const cache = model.newCache(batch);
  const logits: number[][][] = Array.from({ length: batch }, () => []);
  const values: number[][] = Array.from({ length: batch }, () => []);
  for (let t = 0; t < length; t++) {
    const column = Int32Array.from({ length: batch }, (_, b) => tokens[b * length + t]);
    const out = model.step(cache, column);
    const l = out.logits.arraySync();
    const v = out.values.arraySync();
    out.logits.dispose();
    out.values.dispose();
    for (let b = 0; b < batch; b++) {
      logits[b].push(l[b]);
      values[b].push(v[b]);
    }
  }
  cache.dispose();
  return { logits, values };
}

function maxAbsDiff(a: unknown, b: unknown): number {
  const x = (a as number[]).flat(3) as number[];
  const y = (b as number[]).flat(3) as number[];
  expect(x.length).toBe(y.length);
  return x.reduce((m, xi, i) => Math.max(m, Math.abs(xi - y[i])), 0);
}

/** Expects a step's or prefill's outputs, row by row, to equal the forward pass of sequences `rows` at position t; disposes them. */
function expectForwardAt(out: { logits: tf.Tensor2D; values: tf.Tensor1D }, full: ReturnType<typeof forwardValues>, rows: number[], t: number) {
  const logits = out.logits.arraySync();
  const values = out.values.arraySync();
  tf.dispose([out.logits, out.values]);
  rows.forEach((b, row) => {
    expect(maxAbsDiff(logits[row], full.logits[b][t])).toBeLessThan(1e-4);
    expect(Math.abs(values[row] - full.values[b][t])).toBeLessThan(1e-4);
  });
}

/** The GPT written out with plain loops in float64, from the definitions (pre-LN, ALiBi, GPT-2's tanh GELU, heads). */
function referenceForward(config: GPTConfig, w: Record<string, Float32Array>, tokens: number[], alibi = true) {
  const { nEmbd: C, nHead: H, vocabSize: V } = config;
  const D = C / H;
  const hidden = C * config.mlpRatio;
  const linear = (x: number[], weight: Float32Array, bias: Float32Array | null, outWidth: number) =>
    Array.from({ length: outWidth }, (_, o) => x.reduce((s, xi, i) => s + xi * weight[i * outWidth + o], bias ? bias[o] : 0));
  const layerNorm = (x: number[], prefix: string) => {
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length;
    return x.map((xi, i) => ((xi - mean) / Math.sqrt(variance + 1e-5)) * w[`${prefix}.gamma`][i] + w[`${prefix}.beta`][i]);
  };
  const slopes = alibiSlopes(H);
  let xs = tokens.map((t) => Array.from(w.wte.slice(t * C, (t + 1) * C)));
  for (let l = 0; l < config.nLayer; l++) {
    const p = `h.${l}.`;
    const qkv = xs.map((x) => linear(layerNorm(x, `${p}ln1`), w[`${p}attn.qkv.w`], w[`${p}attn.qkv.b`], 3 * C));
    const attended = xs.map((_, i) => {
      const out: number[] = [];
      for (let h = 0; h < H; h++) {
        const q = qkv[i].slice(h * D, (h + 1) * D);
        const scores = qkv.slice(0, i + 1).map((row, j) => {
          const k = row.slice(C + h * D, C + (h + 1) * D);
          return q.reduce((s, qd, d) => s + qd * k[d], 0) / Math.sqrt(D) - (alibi ? slopes[h] * (i - j) : 0);
        });
        const max = Math.max(...scores);
        const weights = scores.map((s) => Math.exp(s - max));
        const total = weights.reduce((a, b) => a + b, 0);
        for (let d = 0; d < D; d++) {
          out.push(weights.reduce((s, wj, j) => s + (wj / total) * qkv[j][2 * C + h * D + d], 0));
        }
      }
      return out;
    });
    xs = xs.map((x, i) => {
      const afterAttention = linear(attended[i], w[`${p}attn.proj.w`], w[`${p}attn.proj.b`], C).map((a, c) => x[c] + a);
      const up = linear(layerNorm(afterAttention, `${p}ln2`), w[`${p}mlp.fc.w`], w[`${p}mlp.fc.b`], hidden);
      const activated = up.map((u) => 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u ** 3))));
      return linear(activated, w[`${p}mlp.proj.w`], w[`${p}mlp.proj.b`], C).map((m, c) => afterAttention[c] + m);
    });
  }
  const finals = xs.map((x) => layerNorm(x, 'lnF'));
  return {
    logits: finals.map((f) => linear(f, w['policyHead.w'], null, V)),
    values: finals.map((f) => linear(f, w['valueHead.w'], w['valueHead.b'], 1)[0]),
  };
}

describe('GPT structure', () => {
  it('has the weights of the config, in a stable named order', () => {
    const model = GPT.init(BASE_MODEL_CONFIG, 1);
    const names = model.namedWeights().map((n) => n.name);
    expect(names).toEqual(weightSpecs(BASE_MODEL_CONFIG).map((s) => s.name));
    expect(names.slice(0, 3)).toEqual(['wte', 'h.0.ln1.gamma', 'h.0.ln1.beta']);
    expect(names.slice(-5)).toEqual(['lnF.gamma', 'lnF.beta', 'policyHead.w', 'valueHead.w', 'valueHead.b']);
    expect(names).toHaveLength(1 + 12 * 3 + 5);
    expect(model.trainableVariables()).toEqual(model.namedWeights().map((n) => n.tensor));
    // wte 99*64 + 3 * (2*64 + 64*192+192 + 64*64+64 + 2*64 + 64*256+256 + 256*64+64) + 2*64 + 64*99 + 64+1
    expect(model.parameterCount()).toBe(162_817);
    model.dispose();
  });

  it('has ALiBi slopes 2^(-8(h+1)/H)', () => {
    expect(alibiSlopes(4)).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256]);
    expect(alibiSlopes(2)).toEqual([1 / 16, 1 / 256]);
    expect(alibiSlopes(8)[0]).toBe(0.5);
  });

  it('gives logits [B, T, V] and values [B, T] from forward, [B, V] and [B] from step', () => {
    const model = GPT.init(BASE_MODEL_CONFIG, 1);
    const out = model.forward(tf.tensor2d(randomTokens(2, 5, 99, 1), [2, 5], 'int32'));
    expect(out.logits.shape).toEqual([2, 5, 99]);
    expect(out.values.shape).toEqual([2, 5]);
    const cache = model.newCache(3);
    const step = model.step(cache, Int32Array.from([1, 2, 3]));
    expect(step.logits.shape).toEqual([3, 99]);
    expect(step.values.shape).toEqual([3]);
    expect(cache.length).toBe(1);
    const single = model.forward(tf.tensor2d([[1], [2], [3]], [3, 1], 'int32'));
    expect(single.logits.shape).toEqual([3, 1, 99]);
    expect(maxAbsDiff(tf.tidy(() => tf.reshape(single.logits, [3, 99]).arraySync()), step.logits.arraySync())).toBeLessThan(1e-5);
    const full = model.forward(tf.zeros([1, 256], 'int32') as tf.Tensor2D);
    expect(full.logits.shape).toEqual([1, 256, 99]);
    tf.dispose([out, step, single, full]);
    cache.dispose();
    model.dispose();
  });
});

describe('GPT init', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = GPT.init(BASE_MODEL_CONFIG, 42);
    const b = GPT.init(BASE_MODEL_CONFIG, 42);
    const c = GPT.init(BASE_MODEL_CONFIG, 43);
    const wa = a.namedWeights();
    const wb = b.namedWeights();
    wa.forEach(({ tensor }, i) => expect(tensor.dataSync()).toEqual(wb[i].tensor.dataSync()));
    expect(c.namedWeights()[0].tensor.dataSync()).not.toEqual(wa[0].tensor.dataSync());
    [a, b, c].forEach((m) => m.dispose());
  });

  it('follows the GPT-2 scheme: N(0, 0.02), residual projections / sqrt(2 nLayer), LayerNorm 1/0, value head 0', () => {
    const model = GPT.init(BASE_MODEL_CONFIG, 7);
    const weight = (name: string) => Array.from(model.namedWeights().find((n) => n.name === name)!.tensor.dataSync());
    const std = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(std(weight('wte'))).toBeCloseTo(0.02, 3);
    expect(Math.abs(mean(weight('wte')))).toBeLessThan(0.001);
    expect(std(weight('h.1.attn.qkv.w'))).toBeCloseTo(0.02, 3);
    expect(std(weight('h.2.attn.proj.w'))).toBeCloseTo(0.02 / Math.sqrt(6), 3);
    expect(std(weight('h.0.mlp.proj.w'))).toBeCloseTo(0.02 / Math.sqrt(6), 3);
    expect(new Set(weight('h.0.ln2.gamma'))).toEqual(new Set([1]));
    expect(new Set([...weight('lnF.beta'), ...weight('h.1.mlp.fc.b'), ...weight('valueHead.w'), ...weight('valueHead.b')])).toEqual(
      new Set([0]),
    );
    const values = tf.tidy(() => model.forward(tf.tensor2d([[5, 6, 7]], [1, 3], 'int32')).values.dataSync());
    expect(Array.from(values)).toEqual([0, 0, 0]);
    model.dispose();
  });
});

describe('GPT forward', () => {
  it('matches a plain-loop float64 reference of the architecture within 1e-4', () => {
    const weights = randomWeights(TINY_CONFIG, 5, 0.5);
    const model = GPT.fromWeights(TINY_CONFIG, weights);
    const tokens = [3, 0, 6, 6, 1, 4];
    const expected = referenceForward(TINY_CONFIG, weights, tokens);
    const actual = forwardValues(model, Int32Array.from(tokens), 1, tokens.length);
    expect(maxAbsDiff(actual.logits[0], expected.logits)).toBeLessThan(1e-4);
    expect(maxAbsDiff(actual.values[0], expected.values)).toBeLessThan(1e-4);
    // the comparison is sensitive to the position bias: without ALiBi the reference is far off
    const withoutAlibi = referenceForward(TINY_CONFIG, weights, tokens, false);
    expect(maxAbsDiff(actual.logits[0], withoutAlibi.logits)).toBeGreaterThan(1e-3);
    model.dispose();
  });

  it('is causal: changing a later token leaves earlier logits and values unchanged', () => {
    const model = randomModel(BASE_MODEL_CONFIG, 3);
    const T = 24;
    const tokens = randomTokens(2, T, 99, 9);
    const changed = tokens.slice();
    changed[12] = (tokens[12] + 1) % 99; // sequence 0, position 12
    changed[T + 20] = (tokens[T + 20] + 5) % 99; // sequence 1, position 20
    const a = forwardValues(model, tokens, 2, T);
    const b = forwardValues(model, changed, 2, T);
    expect(maxAbsDiff(a.logits[0].slice(0, 12), b.logits[0].slice(0, 12))).toBeLessThan(1e-6);
    expect(maxAbsDiff(a.values[0].slice(0, 12), b.values[0].slice(0, 12))).toBeLessThan(1e-6);
    expect(maxAbsDiff(a.logits[1].slice(0, 20), b.logits[1].slice(0, 20))).toBeLessThan(1e-6);
    expect(maxAbsDiff(a.logits[0].slice(12), b.logits[0].slice(12))).toBeGreaterThan(1e-3);
    expect(maxAbsDiff(a.logits[1].slice(20), b.logits[1].slice(20))).toBeGreaterThan(1e-3);
    model.dispose();
  });

  it('knows token order only through ALiBi (one layer, no position embedding)', () => {
    // One causal layer without a position signal sees the earlier tokens as a set: the reference without
    // ALiBi gives [1,2,3,4] and [2,1,3,4] the same last logits; the model must not.
    const weights = randomWeights(TINY_CONFIG, 4, 0.5);
    const model = GPT.fromWeights(TINY_CONFIG, weights);
    const noBiasA = referenceForward(TINY_CONFIG, weights, [1, 2, 3, 4], false).logits[3];
    const noBiasB = referenceForward(TINY_CONFIG, weights, [2, 1, 3, 4], false).logits[3];
    expect(maxAbsDiff(noBiasA, noBiasB)).toBeLessThan(1e-9);
    const a = forwardValues(model, Int32Array.from([1, 2, 3, 4]), 1, 4);
    const b = forwardValues(model, Int32Array.from([2, 1, 3, 4]), 1, 4);
    expect(maxAbsDiff(a.logits[0][3], b.logits[0][3])).toBeGreaterThan(1e-3);
    model.dispose();
  });

  it('rejects tokens that are not int32 [B, T] with 1 <= T <= contextLength', () => {
    const model = GPT.init(TINY_CONFIG, 1);
    const tooLong = tf.zeros([1, 9], 'int32') as tf.Tensor2D;
    const floats = tf.zeros([1, 3]) as tf.Tensor2D;
    expect(() => model.forward(tooLong)).toThrow(/9 positions; the model takes 1 to contextLength \(8\)/);
    expect(() => model.forward(floats)).toThrow(/int32 tokens/);
    tf.dispose([tooLong, floats]);
    model.dispose();
  });

  it('has gradients that match finite differences for every kind of weight', () => {
    const weights = randomWeights(TINY_CONFIG, 8, 0.5);
    const model = GPT.fromWeights(TINY_CONFIG, weights);
    const tokens = tf.tensor2d([[1, 4, 2, 2, 6], [0, 3, 5, 1, 1]], [2, 5], 'int32');
    const logitCoefficients = tf.randomNormal([2, 5, 7], 0, 1, 'float32', 11);
    const valueCoefficients = tf.randomNormal([2, 5], 0, 1, 'float32', 12);
    const loss = () =>
      tf.tidy(() => {
        const { logits, values } = model.forward(tokens);
        return tf.add(tf.sum(tf.mul(logits, logitCoefficients)), tf.sum(tf.mul(values, valueCoefficients))) as tf.Scalar;
      });
    const { value, grads } = tf.variableGrads(loss);
    value.dispose();
    const eps = 1e-2;
    for (const { name, tensor } of model.namedWeights()) {
      const gradient = grads[tensor.name].dataSync();
      const original = tensor.dataSync().slice();
      // qkv.w [4, 12]: columns 1, 5, 9 are in q, k and v; wte: rows of tokens that occur
      const indices = name === 'h.0.attn.qkv.w' ? [1, 12 + 5, 24 + 9] : name === 'wte' ? [4 + 2, 24 + 1] : [0, original.length - 1];
      for (const index of indices) {
        const lossAt = (delta: number) => {
          const moved = original.slice();
          moved[index] += delta;
          tensor.assign(tf.tensor(moved, tensor.shape));
          const l = loss();
          const result = l.dataSync()[0];
          l.dispose();
          return result;
        };
        const numeric = (lossAt(eps) - lossAt(-eps)) / (2 * eps);
        tensor.assign(tf.tensor(original, tensor.shape));
        const message = `${name}[${index}]: analytic ${gradient[index]} vs numeric ${numeric}`;
        expect(Math.abs(gradient[index] - numeric), message).toBeLessThan(2e-3 + 0.01 * Math.abs(numeric));
      }
    }
    tf.dispose([tokens, logitCoefficients, valueCoefficients, grads]);
    model.dispose();
  });
});

describe('GPT step with a KV cache', () => {
  it('equals the full forward pass within 1e-4 (B=3, T=24, random weights)', () => {
    const model = randomModel(BASE_MODEL_CONFIG, 2);
    const B = 3;
    const T = 24;
    const tokens = randomTokens(B, T, 99, 4);
    const full = forwardValues(model, tokens, B, T);
    const stepped = stepValues(model, tokens, B, T);
    expect(maxAbsDiff(full.logits, stepped.logits)).toBeLessThan(1e-4);
    expect(maxAbsDiff(full.values, stepped.values)).toBeLessThan(1e-4);
    // and the comparison is not trivial: logits vary across positions by far more than the tolerance
    expect(maxAbsDiff(full.logits[0][0], full.logits[0][T - 1])).toBeGreaterThan(0.1);
    model.dispose();
  });

  it('advances length by one per step and throws when the cache is full', () => {
    const model = GPT.init(TINY_CONFIG, 1);
    const cache = model.newCache(2);
    for (let t = 0; t < TINY_CONFIG.contextLength; t++) {
      expect(cache.length).toBe(t);
      const out = model.step(cache, Int32Array.from([1, 2]));
      tf.dispose([out.logits, out.values]);
    }
    expect(cache.length).toBe(8);
    expect(() => model.step(cache, Int32Array.from([1, 2]))).toThrow('KV cache is full: it holds contextLength (8) positions');
    cache.dispose();
    model.dispose();
  });

  it('refuses a wrong batch, a token outside the vocabulary, a foreign or disposed cache', () => {
    const model = GPT.init(TINY_CONFIG, 1);
    const other = GPT.init(TINY_CONFIG, 1);
    const cache = model.newCache(2);
    expect(() => model.step(cache, Int32Array.from([1]))).toThrow('step got 1 tokens for a cache of batch size 2');
    expect(() => model.step(cache, Int32Array.from([1, 7]))).toThrow('outside the vocabulary [0, 7)');
    expect(() => other.step(cache, Int32Array.from([1, 2]))).toThrow('cache made by another model');
    cache.dispose();
    expect(() => model.step(cache, Int32Array.from([1, 2]))).toThrow('disposed cache');
    expect(() => model.newCache(0)).toThrow('positive integer');
    model.dispose();
    other.dispose();
  });
});

describe('GPT prefill (the prompts in one pass)', () => {
  it('fills the cache as L steps would: the same logits and values there and at every later step, nothing leaks', () => {
    const model = randomModel(BASE_MODEL_CONFIG, 2);
    const B = 3;
    const T = 24;
    const L = 9;
    const tokens = randomTokens(B, T, 99, 4);
    const full = forwardValues(model, tokens, B, T);
    const before = tf.memory().numTensors;
    const cache = model.newCache(B);
    const rows = Array.from({ length: B }, (_, b) => tokens.slice(b * T, b * T + L));
    const first = model.prefill(cache, rows);
    expect(cache.length).toBe(L);
    expect(first.logits.shape).toEqual([B, 99]);
    expect(first.values.shape).toEqual([B]);
    const all = [0, 1, 2];
    expectForwardAt(first, full, all, L - 1);
    for (let t = L; t < T; t++) expectForwardAt(model.step(cache, Int32Array.from(all, (b) => tokens[b * T + t])), full, all, t);
    cache.dispose();
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  it('refuses a cache that is not empty, foreign or disposed, rows of unequal length or a wrong count, a token outside the vocabulary', () => {
    const model = GPT.init(TINY_CONFIG, 1);
    const cache = model.newCache(2);
    const row = (...tokens: number[]) => Int32Array.from(tokens);
    expect(() => model.prefill(cache, [row(1, 2)])).toThrow('prefill got 1 rows for a cache of batch size 2');
    expect(() => model.prefill(cache, [row(1, 2), row(1)])).toThrow('rows of one length from 1 to contextLength (8), got lengths [2,1]');
    expect(() => model.prefill(cache, [row(), row()])).toThrow('got lengths [0,0]');
    expect(() => model.prefill(cache, [row(1, 9), row(1, 2)])).toThrow('prefill got token 9, outside the vocabulary [0, 7)');
    const out = model.prefill(cache, [row(1, 2, 3), row(1, 4, 5)]);
    tf.dispose([out.logits, out.values]);
    expect(() => model.prefill(cache, [row(1), row(1)])).toThrow('prefill wants an empty cache, got one holding 3 positions');
    const other = GPT.init(TINY_CONFIG, 1);
    const fresh = model.newCache(2);
    expect(() => other.prefill(fresh, [row(1), row(1)])).toThrow('prefill got a cache made by another model');
    fresh.dispose();
    cache.dispose();
    expect(() => model.prefill(cache, [row(1), row(1)])).toThrow('prefill got a disposed cache');
    other.dispose();
    model.dispose();
  });
});

describe('KV cache keepRows (rollouts drop finished sequences)', () => {
  it('the kept rows go on exactly as in the full batch, and nothing leaks', () => {
    const model = randomModel(BASE_MODEL_CONFIG, 2);
    const B = 4;
    const T = 12;
    const tokens = randomTokens(B, T, 99, 5);
    const full = forwardValues(model, tokens, B, T);
    const before = tf.memory().numTensors;
    const cache = model.newCache(B);
    const kept = [1, 3];
    for (let t = 0; t < T; t++) {
      if (t === 5) cache.keepRows(kept);
      const rows = t < 5 ? [0, 1, 2, 3] : kept;
      expectForwardAt(model.step(cache, Int32Array.from(rows, (b) => tokens[b * T + t])), full, rows, t);
    }
    expect(cache.batchSize).toBe(2);
    expect(() => model.step(cache, Int32Array.from([1, 2, 3]))).toThrow('step got 3 tokens for a cache of batch size 2');
    cache.dispose();
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  it('refuses rows out of range, out of order or none', () => {
    const model = GPT.init(TINY_CONFIG, 1);
    const cache = model.newCache(3);
    expect(() => cache.keepRows([])).toThrow('at least one row');
    expect(() => cache.keepRows([0, 3])).toThrow('ascending row indices in [0, 3)');
    expect(() => cache.keepRows([2, 1])).toThrow('ascending row indices in [0, 3)');
    cache.keepRows([0, 2]);
    expect(cache.batchSize).toBe(2);
    cache.dispose();
    model.dispose();
  });
});

describe('GPT copy and memory', () => {
  it('copies deeply: the copy keeps its weights when the original changes or is disposed', () => {
    const original = randomModel(TINY_CONFIG, 6);
    const tokens = Int32Array.from([1, 2, 3]);
    const before = forwardValues(original, tokens, 1, 3);
    const copy = original.copy();
    expect(forwardValues(copy, tokens, 1, 3)).toEqual(before);
    const wte = original.namedWeights()[0].tensor;
    wte.assign(tf.zerosLike(wte));
    expect(maxAbsDiff(forwardValues(original, tokens, 1, 3).logits, before.logits)).toBeGreaterThan(1e-3);
    original.dispose();
    expect(forwardValues(copy, tokens, 1, 3)).toEqual(before);
    copy.dispose();
  });

  it('leaves tf.memory().numTensors flat across forward, backward, step and dispose', () => {
    const model = randomModel(BASE_MODEL_CONFIG, 1);
    const tokens = tf.tensor2d(randomTokens(2, 10, 99, 2), [2, 10], 'int32');
    const trainStep = () => {
      const { value, grads } = tf.variableGrads(() => tf.sum(model.forward(tokens).logits) as tf.Scalar);
      tf.dispose([value, grads]);
    };
    const decode = () => {
      const cache = model.newCache(4);
      for (let t = 0; t < 6; t++) {
        const out = model.step(cache, Int32Array.from([t, t + 1, t + 2, t + 3]));
        tf.dispose([out.logits, out.values]);
      }
      cache.dispose();
    };
    trainStep(); // warm-up: first calls may create backend-side state
    decode();
    expect(tensorsLeftBy(() => model.forward(tokens))).toBe(0);
    expect(tensorsLeftBy(trainStep)).toBe(0);
    expect(tensorsLeftBy(trainStep)).toBe(0);
    expect(tensorsLeftBy(decode)).toBe(0);
    expect(tensorsLeftBy(() => model.copy().dispose())).toBe(0);
    expect(tensorsLeftBy(() => GPT.init(TINY_CONFIG, 3).dispose())).toBe(0);
    tokens.dispose();
    model.dispose();
  });
});
