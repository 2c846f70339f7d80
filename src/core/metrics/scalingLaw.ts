/**
 * The scaling-law statistics of the ZeroTIR paper: how monotonically a metric rises with training
 * step (Spearman's rho; the paper reports 0.686 for accuracy) and how well a power law fits it (least
 * squares of ln y on ln x, the paper's R^2 = 0.93). Pairs with a non-finite value are skipped, so a
 * metric measured only every K steps (NaN in between) can be passed as its column.
 */

function finitePairs(xs: ArrayLike<number>, ys: ArrayLike<number>): { x: number[]; y: number[] } {
  if (xs.length !== ys.length) throw new RangeError(`xs has ${xs.length} entries, ys ${ys.length}`);
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < xs.length; i++) {
    if (Number.isFinite(xs[i]) && Number.isFinite(ys[i])) {
      x.push(xs[i]);
      y.push(ys[i]);
    }
  }
  return { x, y };
}

/** 1-based ranks; tied values share the average of the ranks they span. */
function averageRanks(values: number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Array<number>(values.length);
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1]] === values[order[start]]) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]] = rank;
    start = end + 1;
  }
  return ranks;
}

function pearson(x: number[], y: number[]): number {
  const n = x.length;
  const meanX = x.reduce((s, v) => s + v, 0) / n;
  const meanY = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - meanX) * (y[i] - meanY);
    sxx += (x[i] - meanX) ** 2;
    syy += (y[i] - meanY) ** 2;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
}

/** Spearman's rank correlation (Pearson on average ranks); NaN below 2 points or when either side is constant. */
export function spearmanRho(xs: ArrayLike<number>, ys: ArrayLike<number>): number {
  const { x, y } = finitePairs(xs, ys);
  if (x.length < 2) return NaN;
  return pearson(averageRanks(x), averageRanks(y));
}

/**
 * Least squares ln y = intercept + slope * ln x over the points with x > 0 and y > 0 (n counts
 * them), with its coefficient of determination r2. Slope, intercept and r2 are NaN below 2 usable
 * points or when all usable x are equal; r2 alone is NaN when all usable y are equal (nothing to
 * explain).
 */
export function logLogFit(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
): { slope: number; intercept: number; r2: number; n: number } {
  const pairs = finitePairs(xs, ys);
  const lx: number[] = [];
  const ly: number[] = [];
  for (let i = 0; i < pairs.x.length; i++) {
    if (pairs.x[i] > 0 && pairs.y[i] > 0) {
      lx.push(Math.log(pairs.x[i]));
      ly.push(Math.log(pairs.y[i]));
    }
  }
  const n = lx.length;
  if (n < 2) return { slope: NaN, intercept: NaN, r2: NaN, n };
  const meanX = lx.reduce((s, v) => s + v, 0) / n;
  const meanY = ly.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (lx[i] - meanX) * (ly[i] - meanY);
    sxx += (lx[i] - meanX) ** 2;
    syy += (ly[i] - meanY) ** 2;
  }
  if (sxx === 0) return { slope: NaN, intercept: NaN, r2: NaN, n };
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  let residualSquares = 0;
  for (let i = 0; i < n; i++) residualSquares += (ly[i] - intercept - slope * lx[i]) ** 2;
  const r2 = syy === 0 ? NaN : 1 - residualSquares / syy;
  return { slope, intercept, r2, n };
}
