import type { Problem } from './problem';

/** The prompt the policy continues; its response is everything generated after `A:`. */
export function formatPrompt(p: Pick<Problem, 'question'>): string {
  return `Q: ${p.question}\nA:`;
}
