/**
 * One question with an exact integer answer. Arithmetic questions are `what is <expression>?`, with
 * `expression` valid Python the model can copy into `print(...)`; the other kinds name a computation
 * that code must express (compose), an answer found by checking candidates (search), or an
 * expression written so that copying it into Python raises an error (errorProne), or a second
 * step on the first one's result (multiStep), or a number divided by 7 step by step until 7 no longer divides it (chain).
 */
export type Tier = 'easy' | 'medium' | 'hard';

/** Tiers in a fixed order, so every loop over them draws random numbers in the same order. */
export const TIERS: readonly Tier[] = ['easy', 'medium', 'hard'];

export type Kind = 'arithmetic' | 'compose' | 'search' | 'errorProne' | 'multiStep' | 'chain';

/** Kinds in a fixed order (draws, tables, CSV columns); a new kind goes last, so older draws stay. */
export const KINDS: readonly Kind[] = ['arithmetic', 'compose', 'search', 'errorProne', 'multiStep', 'chain'];

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
  /** Chain only: the calls of its step-by-step solution (1-5). */
  depth?: number;
}

/** The deepest chain: the per-depth metrics have a slot for each depth up to it. */
export const MAX_DEPTH = 5;

/** Whether `x` is a problem's depth: a whole number from 1 to MAX_DEPTH. */
export function isDepth(x: unknown): x is number {
  return Number.isInteger(x) && (x as number) >= 1 && (x as number) <= MAX_DEPTH;
}

/**
 * How many dependent tool calls a problem's step-by-step solution takes: a chain's depth (its exact
 * divisions; one more call shows that 7 no longer divides what is left, unless the answer is taken
 * on trust after the last), 2 for a multi-step question (the value, then its digits), 1 for every
 * other kind.
 */
export function problemDepth(p: Pick<Problem, 'kind' | 'depth'>): number {
  if (p.kind === 'chain') return p.depth ?? 1;
  return p.kind === 'multiStep' ? 2 : 1;
}

/** A family: draws one problem from the seeded stream. */
export type ProblemGenerator = (rng: import('../random').Random) => Problem;
