/** Means of figures: NaN for none (a per-step figure that must exist), or null (a figure with nothing to count). */
export function mean(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i];
  return xs.length === 0 ? NaN : sum / xs.length;
}

export function meanOrNull(xs: ArrayLike<number>): number | null {
  return xs.length === 0 ? null : mean(xs);
}

/** Sample standard deviation over sqrt(n); 0 for fewer than two values. */
export function standardErrorOfMean(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = meanOrNull(xs)!;
  const variance = xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance / xs.length);
}
