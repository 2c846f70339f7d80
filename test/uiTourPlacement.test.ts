/** The tour's card sits below the part it points at, else above, else over its top; always inside the window. */
import { describe, expect, it } from 'vitest';
import { TOUR_STOPS } from '../src/ui/tour/tourStops';
import { TOUR_GAP, tourCardPosition } from '../src/ui/tour/tourPlacement';

const WINDOW = { width: 1280, height: 720 };
const CARD = { width: 380, height: 200 };

describe('tourCardPosition', () => {
  it('puts the card under a part with room below it, lined up with its left edge', () => {
    expect(tourCardPosition({ left: 17, top: 62, width: 70, height: 30 }, CARD, WINDOW)).toEqual({ left: 17, top: 62 + 30 + TOUR_GAP });
  });

  it('puts it above a part near the bottom', () => {
    expect(tourCardPosition({ left: 350, top: 600, width: 900, height: 80 }, CARD, WINDOW)).toEqual({ left: 350, top: 600 - TOUR_GAP - 200 });
  });

  it('puts it over the top of a part taller than the room on either side', () => {
    expect(tourCardPosition({ left: 17, top: 100, width: 320, height: 600 }, CARD, WINDOW)).toEqual({ left: 17, top: 100 + TOUR_GAP });
  });

  it('keeps it inside the window: a part at the right edge, a phone narrower than the card', () => {
    expect(tourCardPosition({ left: 1200, top: 10, width: 60, height: 30 }, CARD, WINDOW).left).toBe(1280 - TOUR_GAP - 380);
    const phone = { width: 390, height: 844 };
    const { left, top } = tourCardPosition({ left: 20, top: 900, width: 350, height: 400 }, { width: 366, height: 260 }, phone);
    expect(left).toBe(TOUR_GAP);
    expect(top + 260).toBeLessThanOrEqual(phone.height - TOUR_GAP);
  });
});

describe('the tour stops', () => {
  it('point at the Train button, the charts, the answers, the knobs and the help, in that order', () => {
    expect(TOUR_STOPS.map((stop) => stop.title)).toEqual(['Train', 'The curves', 'The answers', 'The knobs', 'Help']);
  });
});
