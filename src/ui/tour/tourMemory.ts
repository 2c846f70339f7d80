/**
 * Whether this browser has seen (or skipped) the first-visit tour, kept in localStorage so the tour
 * shows once. Storage that cannot be read (a locked-down browser) counts as seen: a tour that came
 * back at every visit would be worse than none.
 */
export const TOUR_SEEN_KEY = 'tir-lab.tour-seen';

export function tourSeen(): boolean {
  try {
    return localStorage.getItem(TOUR_SEEN_KEY) !== null;
  } catch {
    return true;
  }
}

export function rememberTourSeen(): void {
  try {
    localStorage.setItem(TOUR_SEEN_KEY, '1');
  } catch {
    // Nothing to keep it in: the tour may show again next visit.
  }
}
