/**
 * The guided tour: a card beside each stop's part of the screen, that part ringed, with Back, Next
 * (Done at the last stop) and Skip; Escape skips. It opens by itself on a first visit and from the
 * help; Skip or Done remembers it (tourMemory.ts), so it does not come back by itself. It does not
 * block the page: a student may try what it points at.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { rememberTourSeen, tourSeen } from './tourMemory';
import { tourCardPosition, type Box } from './tourPlacement';
import { closeTour, openTour, useTour } from './tourState';
import { TOUR_STOPS, type TourStop } from './tourStops';

export function GuidedTour() {
  const { open, opening } = useTour();
  useEffect(() => {
    if (!tourSeen()) openTour();
  }, []);
  return open ? <TourCard key={opening} /> : null;
}

const finish = () => {
  rememberTourSeen();
  closeTour();
};

function TourCard() {
  // The stops whose part is on screen now (presenter mode and hide= leave some out).
  const [stops] = useState(() => TOUR_STOPS.filter((stop) => document.querySelector(stop.target) !== null));
  const [index, setIndex] = useState(0);
  const stop = stops[index];
  const place = useStopPlace(stop);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') finish();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!stop) return null;
  const last = index === stops.length - 1;
  // The card is unseen until placed (before the first paint), not hidden: hidden, Next could not take the focus.
  return (
    <>
      {place.ring && <div className="tour-ring" aria-hidden="true" style={place.ring} />}
      <div
        ref={place.card}
        className="tour-card"
        role="dialog"
        aria-modal="false"
        aria-labelledby="tour-title"
        aria-describedby="tour-text"
        data-testid="tour"
        style={place.position ?? { opacity: 0 }}
      >
        <p className="tour-count">
          {index + 1} of {stops.length}
        </p>
        <h2 id="tour-title" data-testid="tour-title">
          {stop.title}
        </h2>
        <p id="tour-text">{stop.text}</p>
        <div className="tour-buttons">
          <button type="button" data-testid="tour-skip" onClick={finish}>
            Skip tour
          </button>
          <span className="tour-move">
            <button type="button" data-testid="tour-back" disabled={index === 0} onClick={() => setIndex(index - 1)}>
              Back
            </button>
            <button key={index} type="button" className="primary" data-testid="tour-next" autoFocus onClick={last ? finish : () => setIndex(index + 1)}>
              {last ? 'Done' : 'Next'}
            </button>
          </span>
        </div>
      </div>
    </>
  );
}

/**
 * Brings the stop's part into view and keeps the ring on it and the card beside it as the page
 * scrolls or the window changes size. The card is measured before it is painted.
 */
function useStopPlace(stop: TourStop | undefined) {
  const card = useRef<HTMLDivElement>(null);
  const [ring, setRing] = useState<Box | null>(null);
  const [position, setPosition] = useState<{ left: number; top: number } | null>(null);
  useLayoutEffect(() => {
    const element = stop && document.querySelector(stop.target);
    if (!element) return;
    element.scrollIntoView({ block: 'center', inline: 'nearest' });
    const measure = () => {
      const { left, top, width, height } = element.getBoundingClientRect();
      const size = card.current?.getBoundingClientRect() ?? { width: 0, height: 0 };
      setRing({ left, top, width, height });
      setPosition(tourCardPosition({ left, top, width, height }, size, { width: window.innerWidth, height: window.innerHeight }));
    };
    measure();
    window.addEventListener('scroll', measure, { passive: true });
    window.addEventListener('resize', measure);
    return () => {
      window.removeEventListener('scroll', measure);
      window.removeEventListener('resize', measure);
    };
  }, [stop]);
  return { card, ring, position };
}
