/**
 * Values shown one after another, each for at least `minMs`: the loop diagram's stages. The worker
 * sends a step's stages at most every STAGE_EVENT_MS, but at a step's end its last stage (the
 * update), the step's end (the next question) and the next step's first stage come within a
 * millisecond, and drawn as they come the update would never be seen. Changes wait their turn, in
 * order; when more than `maxPending` wait (three: that burst), the oldest waiting is dropped, so the
 * picture never falls far behind.
 */
export class HeldValues<T> {
  private pending: T[] = [];
  private shownAt = Number.NEGATIVE_INFINITY;

  constructor(
    private shown: T,
    private readonly minMs: number,
    private readonly maxPending = 3,
  ) {}

  /** A new value at `now` (ms); returns the value to show now. */
  push(value: T, now: number): T {
    if (value !== (this.pending.at(-1) ?? this.shown)) {
      this.pending.push(value);
      if (this.pending.length > this.maxPending) this.pending.shift();
    }
    return this.advance(now);
  }

  /** Moves to the next waiting value if the shown one has had its time; returns the value to show. */
  advance(now: number): T {
    if (this.pending.length > 0 && now - this.shownAt >= this.minMs) {
      this.shown = this.pending.shift()!;
      this.shownAt = now;
    }
    return this.shown;
  }

  /** When advance should next be called (ms), or null when nothing waits. */
  nextAt(): number | null {
    return this.pending.length > 0 ? this.shownAt + this.minMs : null;
  }
}
