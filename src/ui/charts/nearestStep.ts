/**
 * Which recorded step a click on a chart means: the one nearest the clicked x (a chart's x is the
 * step, and a click rarely lands exactly on a point). Pure, so the mapping is tested without a canvas.
 */

/** The step of `steps` (ascending) nearest to `x`, the earlier one on a tie; null when there is none. */
export function nearestStep(steps: ArrayLike<number>, x: number): number | null {
  if (steps.length === 0 || !Number.isFinite(x)) return null;
  // Binary search for the first step at or past x; the answer is it or the one before it.
  let low = 0;
  let high = steps.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (steps[middle] < x) low = middle + 1;
    else high = middle;
  }
  const after = steps[low];
  if (low === 0) return after;
  const before = steps[low - 1];
  return x - before <= after - x ? before : after;
}
