/**
 * One question with an exact integer answer. Arithmetic questions are `what is <expression>?`, with
 * `expression` valid Python the model can copy into `print(...)`; the other kinds name a computation
 * that code must express (compose), an answer found by checking candidates (search), or an
 * expression written so that copying it into Python raises an error (errorProne), or a second
 * step on the first one's result (multiStep).
 */
export type Tier = 'easy' | 'medium' | 'hard';

/** Tiers in a fixed order, so every loop over them draws random numbers in the same order. */
export const TIERS: readonly Tier[] = ['easy', 'medium', 'hard'];

export type Kind = 'arithmetic' | 'compose' | 'search' | 'errorProne' | 'multiStep';

/** Kinds in a fixed order (draws, tables, CSV columns); a new kind goes last, so older draws stay. */
export const KINDS: readonly Kind[] = ['arithmetic', 'compose', 'search', 'errorProne', 'multiStep'];

export interface Problem {
  /** `family:expression` for arithmetic, `family:question` otherwise; unique per question. */
  id: string;
  /** The text after `Q: ` in the prompt. */
  question: string;
  /** Arithmetic only: the Python expression the question asks for. */
  expression?: string;
  /** A Python program that prints exactly the answer (the corpus's code, checked against Python in tests). */
  solution: string;
  /** The exact value the solution prints. */
  answer: number;
  tier: Tier;
  kind: Kind;
  family: string;
}

/** A family: draws one problem from the seeded stream. */
export type ProblemGenerator = (rng: import('../random').Random) => Problem;
