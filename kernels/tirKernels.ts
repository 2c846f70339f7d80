/**
 * TIR Lab's own wasm kernels (AssemblyScript, compiled by `npm run build:kernels` into
 * src/core/model/wasmKernelBinary.ts): the training pass's causal ALiBi attention and GELU, each one
 * pass over its data where tfjs-backend-wasm runs a dozen kernels (transposes, splits, a depthwise
 * convolution per product, elementwise passes), most of them memory-bound (docs/performance.md).
 *
 * The module imports tfjs-backend-wasm's own memory and has none of its own (no data, no stack):
 * src/core/model/wasmKernels.ts registers each function as a tfjs kernel and passes the byte offsets
 * of the tensors' data, so nothing is copied. It may not use Math's functions either: their tables
 * would be a data segment, written over tfjs's memory at start. Shapes: qkv [B, T, 3C] (q, k, v side
 * by side, head h at h*D in each), slopes [H], out [B, T, C], rows [B, H, T, 2], D a multiple of 16.
 */

// ---------------------------------------------------------------------------------------------
// exp, four lanes at a time: 2^n e^r with n = round(x / ln 2), |r| <= ln2 / 2, and e^r = 1 + r +
// r^2 P(r) with the degree-5 P of Cephes' expf (about 1 ulp). Inputs are clamped to [-87, 88], where
// float32's exp is finite and normal; softmax and the GELU gate need no more. The rounding adds
// 1.5 * 2^23, which leaves round(x / ln 2) in the low bits of the sum: its integer bits, moved into
// the exponent field, are 2^n. pmin/pmax, not min/max: wasm's min/max order NaNs and signed zeros,
// which V8 spends six instructions on.

const LOG2E: f32 = 1.44269504;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const ROUNDING: f32 = 12582912.0;
const ROUNDING_BITS: i32 = 0x4b400000;

@inline
function expLanes(x: v128): v128 {
  x = f32x4.pmin(f32x4.pmax(x, f32x4.splat(-87.0)), f32x4.splat(88.0));
  const shifted = f32x4.add(f32x4.mul(x, f32x4.splat(LOG2E)), f32x4.splat(ROUNDING));
  const n = f32x4.sub(shifted, f32x4.splat(ROUNDING));
  let r = f32x4.sub(x, f32x4.mul(n, f32x4.splat(LN2_HI)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(LN2_LO)));
  let p = f32x4.splat(1.9875691500e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.3981999507e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.3334519073e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.1665795894e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.6666665459e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.0000001201e-1));
  const e = f32x4.add(f32x4.add(f32x4.mul(p, f32x4.mul(r, r)), r), f32x4.splat(1.0));
  const twoToN = i32x4.shl(i32x4.add(i32x4.sub(shifted, i32x4.splat(ROUNDING_BITS)), i32x4.splat(127)), 23);
  return f32x4.mul(e, twoToN);
}

@inline
function laneSum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

/** Every lane the largest of v's lanes. */
@inline
function laneMax(v: v128): v128 {
  const m = f32x4.max(v, v128.shuffle<f32>(v, v, 2, 3, 0, 1));
  return f32x4.max(m, v128.shuffle<f32>(m, m, 1, 0, 3, 2));
}

/** [sum of a's lanes, b's, c's, d's]. */
@inline
function laneSums(a: v128, b: v128, c: v128, d: v128): v128 {
  const ab = f32x4.add(v128.shuffle<f32>(a, b, 0, 1, 4, 5), v128.shuffle<f32>(a, b, 2, 3, 6, 7));
  const cd = f32x4.add(v128.shuffle<f32>(c, d, 0, 1, 4, 5), v128.shuffle<f32>(c, d, 2, 3, 6, 7));
  return f32x4.add(v128.shuffle<f32>(ab, cd, 0, 2, 4, 6), v128.shuffle<f32>(ab, cd, 1, 3, 5, 7));
}

/** a . b over n floats (n a multiple of 4). */
@inline
function dot(a: usize, b: usize, n: i32): f32 {
  let acc = f32x4.splat(0);
  for (let d = 0; d < n; d += 4) acc = f32x4.add(acc, f32x4.mul(v128.load(a + (<usize>d << 2)), v128.load(b + (<usize>d << 2))));
  return laneSum(acc);
}

/** Four floats, part 0 to 3 of the 16 at p. */
@inline
function lanes(p: usize, part: i32): v128 {
  return v128.load(p + (<usize>part << 4));
}

/** acc + scale * x, lane-wise. */
@inline
function madd(acc: v128, scale: v128, x: v128): v128 {
  return f32x4.add(acc, f32x4.mul(scale, x));
}

/** x0..x3 (16 floats) times the 16 at p, lane-wise, the four parts added: its lanes sum to the dot product. */
@inline
function partialDot(x0: v128, x1: v128, x2: v128, x3: v128, p: usize): v128 {
  return f32x4.add(f32x4.add(f32x4.mul(x0, lanes(p, 0)), f32x4.mul(x1, lanes(p, 1))), f32x4.add(f32x4.mul(x2, lanes(p, 2)), f32x4.mul(x3, lanes(p, 3))));
}

/**
 * out[j] = x . row_j for j in [0, count): x and each row D floats (D a multiple of 16), the rows
 * rowBytes apart from `rows`; four rows at a time, with 16 floats of x held in registers.
 */
function dotRows(out: usize, x: usize, rows: usize, rowBytes: usize, count: i32, D: i32): void {
  const full = count & ~3;
  for (let block = 0; block < D; block += 16) {
    const at = <usize>block << 2;
    const x0 = lanes(x + at, 0), x1 = lanes(x + at, 1), x2 = lanes(x + at, 2), x3 = lanes(x + at, 3);
    for (let j = 0; j < full; j += 4) {
      const r = rows + <usize>j * rowBytes + at;
      let sums = laneSums(
        partialDot(x0, x1, x2, x3, r),
        partialDot(x0, x1, x2, x3, r + rowBytes),
        partialDot(x0, x1, x2, x3, r + 2 * rowBytes),
        partialDot(x0, x1, x2, x3, r + 3 * rowBytes),
      );
      const o = out + (<usize>j << 2);
      if (block > 0) sums = f32x4.add(sums, v128.load(o));
      v128.store(o, sums);
    }
    for (let j = full; j < count; j++) {
      const o = out + (<usize>j << 2);
      const sum = laneSum(partialDot(x0, x1, x2, x3, rows + <usize>j * rowBytes + at));
      store<f32>(o, block > 0 ? load<f32>(o) + sum : sum);
    }
  }
}

/**
 * out[0..D) = sum over j < count of (weights[j] scale) row_j, the rows rowBytes apart from `rows`
 * (D a multiple of 16): 16 outputs at a time, summed in registers.
 */
function weightedRowSum(out: usize, weights: usize, scale: f32, rows: usize, rowBytes: usize, count: i32, D: i32): void {
  for (let block = 0; block < D; block += 16) {
    const at = <usize>block << 2;
    let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
    for (let j = 0; j < count; j++) {
      const w = f32x4.splat(load<f32>(weights + (<usize>j << 2)) * scale);
      const row = rows + <usize>j * rowBytes + at;
      a0 = madd(a0, w, lanes(row, 0));
      a1 = madd(a1, w, lanes(row, 1));
      a2 = madd(a2, w, lanes(row, 2));
      a3 = madd(a3, w, lanes(row, 3));
    }
    v128.store(out + at, a0);
    v128.store(out + at + 16, a1);
    v128.store(out + at + 32, a2);
    v128.store(out + at + 48, a3);
  }
}

/** p[0..n) = exp(p - max) in place; returns their sum. */
function expShifted(p: usize, n: i32, max: f32): f32 {
  const m = f32x4.splat(max);
  let sum = f32x4.splat(0);
  const full = n & ~3;
  for (let j = 0; j < full; j += 4) {
    const at = p + (<usize>j << 2);
    const e = expLanes(f32x4.sub(v128.load(at), m));
    v128.store(at, e);
    sum = f32x4.add(sum, e);
  }
  let total = laneSum(sum);
  for (let j = full; j < n; j++) {
    const at = p + (<usize>j << 2);
    const e = f32x4.extract_lane(expLanes(f32x4.splat(load<f32>(at) - max)), 0);
    store<f32>(at, e);
    total += e;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Causal ALiBi attention: scores s_ij = scale q_i . k_j - slope_h (i - j) for keys j <= i,
// p_i = softmax(s_i), out_i = sum_j p_ij v_j. Keys after the query are skipped, not masked. The
// weights p are not kept: the forward keeps each row's maximum score and 1 / sum of exps ("rows"),
// the backward recomputes p from them (a [B, H, T, T] tensor per layer would outweigh the rest of
// the pass's memory).

/** Writes the scores of query qi against keys 0..i into row[0..i]; returns their maximum. */
function scoreRow(row: usize, qi: usize, keys: usize, rowBytes: usize, i: i32, D: i32, scale: f32, headSlope: f32): f32 {
  dotRows(row, qi, keys, rowBytes, i + 1, D);
  // s_j = scale dot_j - slope (i - j) = scale dot_j + slope j - slope i, four keys at a time
  const scales = f32x4.splat(scale);
  const slopes = f32x4.splat(headSlope);
  const offset = f32x4.splat(-headSlope * <f32>i);
  let keyIndex = f32x4(0, 1, 2, 3);
  let max = f32x4.splat(-Infinity);
  const full = (i + 1) & ~3;
  for (let j = 0; j < full; j += 4) {
    const at = row + (<usize>j << 2);
    const s = f32x4.add(f32x4.mul(scales, v128.load(at)), f32x4.add(f32x4.mul(slopes, keyIndex), offset));
    v128.store(at, s);
    max = f32x4.max(max, s);
    keyIndex = f32x4.add(keyIndex, f32x4.splat(4));
  }
  let rowMax = f32x4.extract_lane(laneMax(max), 0);
  for (let j = full; j <= i; j++) {
    const at = row + (<usize>j << 2);
    const s = scale * load<f32>(at) - headSlope * <f32>(i - j);
    store<f32>(at, s);
    if (s > rowMax) rowMax = s;
  }
  return rowMax;
}

/** p_j *= inverse (the softmax), and dS_j = p_j (dS_j - delta) scale, where dS_j held dOut_i . v_j. */
function probsAndScoreGradients(p: usize, dS: usize, n: i32, inverse: f32, delta: f32, scale: f32): void {
  const inverses = f32x4.splat(inverse);
  const deltas = f32x4.splat(delta);
  const scales = f32x4.splat(scale);
  const full = n & ~3;
  for (let j = 0; j < full; j += 4) {
    const at = <usize>j << 2;
    const pj = f32x4.mul(v128.load(p + at), inverses);
    v128.store(p + at, pj);
    v128.store(dS + at, f32x4.mul(f32x4.mul(pj, f32x4.sub(v128.load(dS + at), deltas)), scales));
  }
  for (let j = full; j < n; j++) {
    const at = <usize>j << 2;
    const pj = load<f32>(p + at) * inverse;
    store<f32>(p + at, pj);
    store<f32>(dS + at, pj * (load<f32>(dS + at) - delta) * scale);
  }
}

export function attentionForward(qkv: usize, slopes: usize, out: usize, rows: usize, scratch: usize, B: i32, T: i32, H: i32, D: i32, scale: f32): void {
  const C = H * D;
  const rowBytes = <usize>(3 * C) << 2;
  for (let b = 0; b < B; b++) {
    const seq = qkv + <usize>(b * T) * rowBytes;
    for (let h = 0; h < H; h++) {
      const headSlope = load<f32>(slopes + (<usize>h << 2));
      const q = seq + (<usize>(h * D) << 2);
      const k = seq + (<usize>(C + h * D) << 2);
      const v = seq + (<usize>(2 * C + h * D) << 2);
      const rowsHead = rows + (<usize>((b * H + h) * T) << 3);
      for (let i = 0; i < T; i++) {
        const max = scoreRow(scratch, q + <usize>i * rowBytes, k, rowBytes, i, D, scale, headSlope);
        const inverse: f32 = 1.0 / expShifted(scratch, i + 1, max);
        store<f32>(rowsHead + (<usize>i << 3), max);
        store<f32>(rowsHead + (<usize>i << 3) + 4, inverse);
        weightedRowSum(out + (<usize>((b * T + i) * C + h * D) << 2), scratch, inverse, v, rowBytes, i + 1, D);
      }
    }
  }
}

/**
 * The gradient of attentionForward: with dP_ij = dOut_i . v_j and delta_i = dOut_i . out_i
 * (= sum_j p_ij dP_ij), dS_ij = p_ij (dP_ij - delta_i); dq_i = scale sum_j dS_ij k_j,
 * dk_j = scale sum_i dS_ij q_i, dv_j = sum_i p_ij dOut_i. Per head it goes twice over the pairs:
 * by query (p and dS into scratch [2, T, T], dq summed in registers), then by key (dk and dv summed
 * in registers). dQkv [B, T, 3C] is written whole; scratch holds 2 T^2 floats.
 */
export function attentionBackward(qkv: usize, slopes: usize, out: usize, rows: usize, dOut: usize, dQkv: usize, scratch: usize, B: i32, T: i32, H: i32, D: i32, scale: f32): void {
  const C = H * D;
  const rowBytes = <usize>(3 * C) << 2;
  const outRowBytes = <usize>C << 2;
  const probs = scratch;
  const dScores = scratch + (<usize>(T * T) << 2);
  const tBytes = <usize>T << 2;
  for (let b = 0; b < B; b++) {
    const seq = qkv + <usize>(b * T) * rowBytes;
    const dSeq = dQkv + <usize>(b * T) * rowBytes;
    const outSeq = out + <usize>(b * T) * outRowBytes;
    const dOutSeq = dOut + <usize>(b * T) * outRowBytes;
    for (let h = 0; h < H; h++) {
      const headSlope = load<f32>(slopes + (<usize>h << 2));
      const headAt = <usize>(h * D) << 2;
      const kAt = <usize>(C + h * D) << 2;
      const vAt = <usize>(2 * C + h * D) << 2;
      const rowsHead = rows + (<usize>((b * H + h) * T) << 3);
      for (let i = 0; i < T; i++) {
        const dOi = dOutSeq + <usize>i * outRowBytes + headAt;
        const p = probs + <usize>i * tBytes;
        const dS = dScores + <usize>i * tBytes;
        const delta = dot(dOi, outSeq + <usize>i * outRowBytes + headAt, D);
        scoreRow(p, seq + <usize>i * rowBytes + headAt, seq + kAt, rowBytes, i, D, scale, headSlope);
        expShifted(p, i + 1, load<f32>(rowsHead + (<usize>i << 3)));
        const inverse = load<f32>(rowsHead + (<usize>i << 3) + 4);
        dotRows(dS, dOi, seq + vAt, rowBytes, i + 1, D);
        probsAndScoreGradients(p, dS, i + 1, inverse, delta, scale);
        weightedRowSum(dSeq + <usize>i * rowBytes + headAt, dS, 1.0, seq + kAt, rowBytes, i + 1, D);
      }
      for (let j = 0; j < T; j++) {
        const dkj = dSeq + <usize>j * rowBytes + kAt;
        const dvj = dSeq + <usize>j * rowBytes + vAt;
        const column = <usize>j << 2;
        for (let block = 0; block < D; block += 16) {
          const at = <usize>block << 2;
          let k0 = f32x4.splat(0), k1 = f32x4.splat(0), k2 = f32x4.splat(0), k3 = f32x4.splat(0);
          let v0 = f32x4.splat(0), v1 = f32x4.splat(0), v2 = f32x4.splat(0), v3 = f32x4.splat(0);
          for (let i = j; i < T; i++) {
            const ds = f32x4.splat(load<f32>(dScores + <usize>i * tBytes + column));
            const pij = f32x4.splat(load<f32>(probs + <usize>i * tBytes + column));
            const qi = seq + <usize>i * rowBytes + headAt + at;
            const dOi = dOutSeq + <usize>i * outRowBytes + headAt + at;
            k0 = madd(k0, ds, lanes(qi, 0));
            k1 = madd(k1, ds, lanes(qi, 1));
            k2 = madd(k2, ds, lanes(qi, 2));
            k3 = madd(k3, ds, lanes(qi, 3));
            v0 = madd(v0, pij, lanes(dOi, 0));
            v1 = madd(v1, pij, lanes(dOi, 1));
            v2 = madd(v2, pij, lanes(dOi, 2));
            v3 = madd(v3, pij, lanes(dOi, 3));
          }
          v128.store(dkj + at, k0);
          v128.store(dkj + at + 16, k1);
          v128.store(dkj + at + 32, k2);
          v128.store(dkj + at + 48, k3);
          v128.store(dvj + at, v0);
          v128.store(dvj + at + 16, v1);
          v128.store(dvj + at + 32, v2);
          v128.store(dvj + at + 48, v3);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// GELU in GPT-2's tanh form as x sigmoid(z), z = a (x + c x^3) (gpt.ts), over n floats.

@inline
function gate(x: v128, a: v128, c: v128): v128 {
  const z = f32x4.mul(a, f32x4.add(x, f32x4.mul(c, f32x4.mul(f32x4.mul(x, x), x))));
  return f32x4.div(f32x4.splat(1.0), f32x4.add(f32x4.splat(1.0), expLanes(f32x4.neg(z))));
}

export function geluForward(x: usize, y: usize, n: i32, scale: f32, cubic: f32): void {
  const a = f32x4.splat(scale);
  const c = f32x4.splat(cubic);
  const full = n & ~3;
  for (let i = 0; i < full; i += 4) {
    const at = <usize>i << 2;
    const xi = v128.load(x + at);
    v128.store(y + at, f32x4.mul(xi, gate(xi, a, c)));
  }
  for (let i = full; i < n; i++) {
    const at = <usize>i << 2;
    const xi = load<f32>(x + at);
    store<f32>(y + at, xi * f32x4.extract_lane(gate(f32x4.splat(xi), a, c), 0));
  }
}

/** dx = dy (g + x g (1 - g) a (1 + 3 c x^2)), g = sigmoid(z). */
@inline
function geluSlope(x: v128, a: v128, c: v128): v128 {
  const one = f32x4.splat(1.0);
  const g = gate(x, a, c);
  const dz = f32x4.mul(a, f32x4.add(one, f32x4.mul(f32x4.mul(f32x4.splat(3.0), c), f32x4.mul(x, x))));
  return f32x4.add(g, f32x4.mul(f32x4.mul(x, f32x4.mul(g, f32x4.sub(one, g))), dz));
}

export function geluBackward(x: usize, dy: usize, dx: usize, n: i32, scale: f32, cubic: f32): void {
  const a = f32x4.splat(scale);
  const c = f32x4.splat(cubic);
  const full = n & ~3;
  for (let i = 0; i < full; i += 4) {
    const at = <usize>i << 2;
    v128.store(dx + at, f32x4.mul(v128.load(dy + at), geluSlope(v128.load(x + at), a, c)));
  }
  for (let i = full; i < n; i++) {
    const at = <usize>i << 2;
    store<f32>(dx + at, load<f32>(dy + at) * f32x4.extract_lane(geluSlope(f32x4.splat(load<f32>(x + at)), a, c), 0));
  }
}

// ---------------------------------------------------------------------------------------------
// Column sums of x [rows, cols] -> out [cols]: the bias and LayerNorm gradients. tfjs-backend-wasm
// sums over axis 0 by transposing first, and ones @ x packs all of x as a matrix operand each call.

export function columnSums(x: usize, out: usize, rows: i32, cols: i32): void {
  const full = cols & ~3;
  const rowBytes = <usize>cols << 2;
  for (let c = 0; c < full; c += 4) {
    let acc = f32x4.splat(0);
    let at = x + (<usize>c << 2);
    for (let r = 0; r < rows; r++) {
      acc = f32x4.add(acc, v128.load(at));
      at += rowBytes;
    }
    v128.store(out + (<usize>c << 2), acc);
  }
  for (let c = full; c < cols; c++) {
    let acc: f32 = 0;
    for (let r = 0; r < rows; r++) acc += load<f32>(x + <usize>r * rowBytes + (<usize>c << 2));
    store<f32>(out + (<usize>c << 2), acc);
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding (src/core/model/decoding.ts): one new position per sequence against a KV cache that is
// preallocated [B, H, capacity, D] and written in place, as on WebGPU (src/core/model/fusedOps.ts
// documents each kernel). qkv is [1, B, 3C] with q already scaled by 1/sqrt(D).

/** Copies part (1 keys, 2 values) of each row of qkv into position `position` of cache. */
export function writeHeads(qkv: usize, cache: usize, B: i32, H: i32, D: i32, capacity: i32, part: i32, position: i32): void {
  const C = H * D;
  const headBytes = <usize>D << 2;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const from = qkv + (<usize>(b * 3 * C + part * C + h * D) << 2);
      const to = cache + (<usize>(((b * H + h) * capacity + position) * D) << 2);
      memory.copy(to, from, headBytes);
    }
  }
}

/** out [1, B, C]: each row's query (at position length - 1) against its first `length` cached keys and values. */
export function cacheAttention(qkv: usize, keys: usize, values: usize, slopes: usize, out: usize, scratch: usize, B: i32, H: i32, D: i32, capacity: i32, length: i32): void {
  const C = H * D;
  const rowBytes = <usize>D << 2;
  const last = length - 1;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const headSlope = load<f32>(slopes + (<usize>h << 2));
      const q = qkv + (<usize>(b * 3 * C + h * D) << 2);
      const head = <usize>((b * H + h) * capacity * D) << 2;
      const max = scoreRow(scratch, q, keys + head, rowBytes, last, D, 1.0, headSlope);
      const inverse: f32 = 1.0 / expShifted(scratch, length, max);
      weightedRowSum(out + (<usize>(b * C + h * D) << 2), scratch, inverse, values + head, rowBytes, length, D);
    }
  }
}

/** y = x / sqrt(mean(x^2) + eps) over rows of width C. */
export function rmsNorm(x: usize, y: usize, rows: i32, C: i32, eps: f32): void {
  const rowBytes = <usize>C << 2;
  const full = C & ~3;
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>r * rowBytes;
    const yr = y + <usize>r * rowBytes;
    let squares = f32x4.splat(0);
    for (let c = 0; c < full; c += 4) {
      const v = v128.load(xr + (<usize>c << 2));
      squares = f32x4.add(squares, f32x4.mul(v, v));
    }
    let sum = laneSum(squares);
    for (let c = full; c < C; c++) {
      const v = load<f32>(xr + (<usize>c << 2));
      sum += v * v;
    }
    const scale = f32x4.extract_lane(f32x4.div(f32x4.splat(1.0), f32x4.sqrt(f32x4.splat(sum / <f32>C + eps))), 0);
    const scales = f32x4.splat(scale);
    for (let c = 0; c < full; c += 4) v128.store(yr + (<usize>c << 2), f32x4.mul(v128.load(xr + (<usize>c << 2)), scales));
    for (let c = full; c < C; c++) store<f32>(yr + (<usize>c << 2), load<f32>(xr + (<usize>c << 2)) * scale);
  }
}

/** y = x sigmoid(x (x^2 + offset)), elementwise: decoding.ts's GELU with its constants folded into the weights. */
export function geluGate(x: usize, y: usize, n: i32, offset: f32): void {
  const a = f32x4.splat(offset);
  const one = f32x4.splat(1.0);
  const full = n & ~3;
  for (let i = 0; i < full; i += 4) {
    const at = <usize>i << 2;
    const v = v128.load(x + at);
    const z = f32x4.mul(v, f32x4.add(f32x4.mul(v, v), a));
    v128.store(y + at, f32x4.div(v, f32x4.add(one, expLanes(f32x4.neg(z)))));
  }
  for (let i = full; i < n; i++) {
    const at = <usize>i << 2;
    const v = load<f32>(x + at);
    const e = f32x4.extract_lane(expLanes(f32x4.splat(-v * (v * v + offset))), 0);
    store<f32>(y + at, v / (1.0 + e));
  }
}

// ---------------------------------------------------------------------------------------------
// LayerNorm over rows of width C (a multiple of 4): gpt.ts's training pass, one pass each way where
// tfjs runs nine kernels forward and fourteen backward.

/** y = xHat gamma + beta with xHat = (x - mean) rstd, rstd = 1 / sqrt(var + eps); keeps xHat and rstd for the gradient. */
export function layerNormForward(x: usize, gamma: usize, beta: usize, y: usize, normalized: usize, rstd: usize, rows: i32, C: i32, eps: f32): void {
  const rowBytes = <usize>C << 2;
  const width = f32x4.splat(<f32>C);
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>r * rowBytes;
    let sum = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) sum = f32x4.add(sum, v128.load(xr + (<usize>c << 2)));
    const mean = f32x4.div(f32x4.splat(laneSum(sum)), width);
    let squares = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) {
      const d = f32x4.sub(v128.load(xr + (<usize>c << 2)), mean);
      squares = f32x4.add(squares, f32x4.mul(d, d));
    }
    const scale = f32x4.div(f32x4.splat(1.0), f32x4.sqrt(f32x4.add(f32x4.div(f32x4.splat(laneSum(squares)), width), f32x4.splat(eps))));
    store<f32>(rstd + (<usize>r << 2), f32x4.extract_lane(scale, 0));
    const nr = normalized + <usize>r * rowBytes;
    const yr = y + <usize>r * rowBytes;
    for (let c = 0; c < C; c += 4) {
      const at = <usize>c << 2;
      const n = f32x4.mul(f32x4.sub(v128.load(xr + at), mean), scale);
      v128.store(nr + at, n);
      v128.store(yr + at, f32x4.add(f32x4.mul(n, v128.load(gamma + at)), v128.load(beta + at)));
    }
  }
}

/**
 * With g = dy gamma: dx = rstd (g - mean(g) - xHat mean(g xHat)); dGamma = sum over rows of dy xHat,
 * dBeta = sum of dy.
 */
export function layerNormBackward(dy: usize, normalized: usize, rstd: usize, gamma: usize, dx: usize, dGamma: usize, dBeta: usize, rows: i32, C: i32): void {
  const rowBytes = <usize>C << 2;
  const width = f32x4.splat(<f32>C);
  memory.fill(dGamma, 0, rowBytes);
  memory.fill(dBeta, 0, rowBytes);
  for (let r = 0; r < rows; r++) {
    const dyr = dy + <usize>r * rowBytes;
    const nr = normalized + <usize>r * rowBytes;
    let gSum = f32x4.splat(0);
    let gxSum = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) {
      const at = <usize>c << 2;
      const d = v128.load(dyr + at);
      const n = v128.load(nr + at);
      const g = f32x4.mul(d, v128.load(gamma + at));
      gSum = f32x4.add(gSum, g);
      gxSum = f32x4.add(gxSum, f32x4.mul(g, n));
      v128.store(dGamma + at, f32x4.add(v128.load(dGamma + at), f32x4.mul(d, n)));
      v128.store(dBeta + at, f32x4.add(v128.load(dBeta + at), d));
    }
    const gMean = f32x4.div(f32x4.splat(laneSum(gSum)), width);
    const gxMean = f32x4.div(f32x4.splat(laneSum(gxSum)), width);
    const scale = f32x4.splat(load<f32>(rstd + (<usize>r << 2)));
    const dxr = dx + <usize>r * rowBytes;
    for (let c = 0; c < C; c += 4) {
      const at = <usize>c << 2;
      const g = f32x4.mul(v128.load(dyr + at), v128.load(gamma + at));
      const centred = f32x4.sub(f32x4.sub(g, gMean), f32x4.mul(v128.load(nr + at), gxMean));
      v128.store(dxr + at, f32x4.mul(scale, centred));
    }
  }
}

/** out [1, B, C] = rows tokens[b] of table [1, V, C] (the embedding lookup; tfjs's gather takes 0.4 ms here for it). */
export function embedRows(table: usize, tokens: usize, out: usize, B: i32, C: i32): void {
  const rowBytes = <usize>C << 2;
  for (let b = 0; b < B; b++) memory.copy(out + <usize>b * rowBytes, table + <usize>load<i32>(tokens + (<usize>b << 2)) * rowBytes, rowBytes);
}

/** out [count, ...] = rows rows[i] of x [B, ...], each rowFloats long (a cache keeping its unfinished rows; tfjs's gather copies element by element). */
export function gatherRows(x: usize, rows: usize, out: usize, count: i32, rowFloats: i32): void {
  const rowBytes = <usize>rowFloats << 2;
  for (let i = 0; i < count; i++) memory.copy(out + <usize>i * rowBytes, x + <usize>load<i32>(rows + (<usize>i << 2)) * rowBytes, rowBytes);
}
