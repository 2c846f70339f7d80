/**
 * A question a person types for "Ask the model" (core/rollout/answerQuestion.ts): the check the page's
 * field and the worker share, and its prompt. No tfjs here, so the page can import it.
 */
import { formatPrompt } from './prompt';

/** About the length of the practice questions (under 100 characters): the model has read no longer ones. */
export const MAX_QUESTION_CHARS = 120;

/** What is wrong with a question, in the words of the screen (null: it can be asked). */
export function questionError(question: string): string | null {
  if (typeof question !== 'string' || question.trim() === '') return 'type a question first';
  if (question.trim().length > MAX_QUESTION_CHARS) return `a question of at most ${MAX_QUESTION_CHARS} characters`;
  return null;
}

/** The question as the prompt's one line: surrounding space dropped, line breaks made spaces. */
export function promptOf(question: string): string {
  return formatPrompt({ question: question.trim().replace(/\s+/g, ' ') });
}
