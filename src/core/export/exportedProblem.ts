/**
 * The one place the export reads a task's problem. Everything else in src/core/export works on
 * ExportedProblem, so a change to the task API (a question text that is not a bare expression)
 * changes this adapter only.
 */
import type { Problem } from '../tasks/problem';
import { formatPrompt } from '../tasks/prompt';

export interface ExportedProblem {
  /** Unique per question (the lab's problem id). */
  id: string;
  /** The question as a person reads it, without the lab's `Q:`/`A:` framing. */
  question: string;
  /** The exact prompt the lab's policy continues. */
  labPrompt: string;
  /** The integer a correct `Answer:` line carries. */
  answer: number;
  family: string;
  tier: string;
  kind: string;
}

export function exportedProblem(p: Problem): ExportedProblem {
  return { id: p.id, question: p.question, labPrompt: formatPrompt(p), answer: p.answer, family: p.family, tier: p.tier, kind: p.kind };
}
