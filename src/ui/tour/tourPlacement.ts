/**
 * Where the tour's card goes beside the part it points at: below it when there is room, else above,
 * else over its top edge (a part taller than the window); never off the window's edges. Pure, so the
 * placement is tested without a browser.
 */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Space kept between the card and the part, and between the card and the window's edges (px). */
export const TOUR_GAP = 12;

export function tourCardPosition(target: Box, card: { width: number; height: number }, window: { width: number; height: number }): { left: number; top: number } {
  const below = target.top + target.height + TOUR_GAP;
  const above = target.top - TOUR_GAP - card.height;
  const fitsBelow = below + card.height <= window.height - TOUR_GAP;
  const fitsAbove = above >= TOUR_GAP;
  const top = fitsBelow ? below : fitsAbove ? above : target.top + TOUR_GAP;
  return {
    left: clamp(target.left, TOUR_GAP, window.width - TOUR_GAP - card.width),
    top: clamp(top, TOUR_GAP, window.height - TOUR_GAP - card.height),
  };
}

/** `value` kept within [low, high]; a card larger than the window keeps its left or top edge at `low`. */
function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(value, high));
}
