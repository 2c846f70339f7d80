/** A figure as slow motion prints it: three decimals, and never "-0.000" for a tiny negative (a KL of -0.00004 reads 0.000). */
export function threeDecimals(x: number): string {
  const text = x.toFixed(3);
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}
