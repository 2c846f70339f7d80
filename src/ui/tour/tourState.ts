/**
 * The tour's one piece of shared state: open or not, and which opening (so "Take the tour" while it
 * is open starts it again from its first stop). The tour opens itself on a first visit and the
 * help's "Take the tour" opens it again, from two places on the page.
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';

const tour = createStore<{ open: boolean; opening: number }>(() => ({ open: false, opening: 0 }));

export function openTour(): void {
  tour.setState((s) => ({ open: true, opening: s.opening + 1 }));
}

export function closeTour(): void {
  tour.setState({ open: false });
}

export function useTour(): { open: boolean; opening: number } {
  return useStore(tour, useShallow((s) => ({ open: s.open, opening: s.opening })));
}
