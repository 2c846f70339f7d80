/**
 * Seeded randomness. Every random choice in the engine draws from a Random made from the run's
 * seed, so a run with the same seed and config gives the same numbers.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    // splitmix32 of the seed, so nearby seeds give unrelated streams
    let s = (seed >>> 0) + 0x9e3779b9;
    s = Math.imul(s ^ (s >>> 16), 0x85ebca6b);
    s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35);
    this.state = (s ^ (s >>> 16)) >>> 0;
  }

  /** Uniform in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** 0..n-1 in a uniformly random order (Fisher-Yates). */
  permutation(n: number): number[] {
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(0, i);
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** A new independent stream, e.g. one per purpose, so adding draws in one place leaves the others unchanged. */
  fork(label: number): Random {
    return new Random(Math.floor(this.next() * 4294967296) ^ Math.imul(label + 1, 0x27d4eb2d));
  }

  /** The stream's position (a uint32): saved with a run, so a resumed run draws what it would have drawn. */
  saveState(): number {
    return this.state;
  }

  /** The stream at a position saveState gave. */
  static fromState(state: number): Random {
    const random = new Random(0);
    random.state = state >>> 0;
    return random;
  }

  /** 32-bit seed for tfjs initialisers. */
  seed(): number {
    return Math.floor(this.next() * 2147483647);
  }
}
