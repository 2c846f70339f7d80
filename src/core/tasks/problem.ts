/** One arithmetic question. `expression` is valid Python, so the model can copy it into `print(...)`. */
export type Tier = 'easy' | 'medium' | 'hard';

/** Tiers in a fixed order, so every loop over them draws random numbers in the same order. */
export const TIERS: readonly Tier[] = ['easy', 'medium', 'hard'];

export interface Problem {
  /** `family:expression`, unique per question. */
  id: string;
  expression: string;
  /** The exact value Python prints for `expression`. */
  answer: number;
  tier: Tier;
  family: string;
}
