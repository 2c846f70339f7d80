import type { Random } from '../random';

/**
 * A key of `weights` drawn with probability proportional to its weight, keys tried in `order` so
 * the draw does not depend on object key order. Throws on negative or non-finite weights, or when
 * they sum to zero.
 */
export function pickWeighted<K extends string>(rng: Random, weights: Record<K, number>, order: readonly K[]): K {
  let total = 0;
  for (const key of order) {
    const w = weights[key];
    if (!Number.isFinite(w) || w < 0) throw new Error(`weight of ${key} must be a finite number >= 0, got ${w}`);
    total += w;
  }
  if (total <= 0) throw new Error(`weights ${JSON.stringify(weights)} sum to zero`);
  let remaining = rng.next() * total;
  for (const key of order) {
    remaining -= weights[key];
    if (remaining < 0) return key;
  }
  // Rounding can leave remaining at ~0 after the last key: return the last key with weight.
  return order.filter((key) => weights[key] > 0).at(-1)!;
}
