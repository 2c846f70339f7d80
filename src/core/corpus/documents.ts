/**
 * The document kinds of the pretraining corpus. None shows the full tool loop
 * (question -> code -> output -> answer): that is what RL must discover.
 */
import type { Random } from '../random';
import { formatPrompt } from '../tasks/prompt';
import { writtenExpression } from '../tasks/errorProneFamilies';
import type { Problem } from '../tasks/problem';
import { chainFirstCode, chainSession } from './chainSessions';
import { closingSentence, digitSumChainSession, firstStepCode, guessCheckSession, importRepairSession, timesRepairSession } from './notebookSessions';
import { builtinSnippet, expressionSnippet } from './pythonSnippets';

/** A question with its correct answer, sometimes after a short line of working. */
export function qaDocument(rng: Random, p: Problem): string {
  const v = p.answer;
  const e = p.expression;
  const working = e === undefined ? [`The result is ${v}.`] : [`${e} = ${v}`, `We compute ${e}, which is ${v}.`, `The result is ${v}.`];
  const response = rng.next() < 0.7 ? ` Answer: ${v}` : ` ${rng.pick(working)}\nAnswer: ${v}`;
  return formatPrompt(p) + response;
}

/**
 * A question whose answer starts with a python block, then the answer line: no output block (the
 * environment's part). The block is the problem's solution (an arithmetic one in either form), or
 * for a multi-step question its first step only (the second is the notebooks' digit-sum cell), for
 * a chain its first division (the next ones are the notebooks' division cells), and for an
 * error-prone question the question copied as written (`print(239 x 91)`), which raises when run
 * (the notebooks' repair sessions show the fix).
 */
export function toolQaDocument(rng: Random, p: Problem): string {
  return `${formatPrompt(p)} \`\`\`python\n${toolAnswerCode(rng, p)}\n\`\`\`\nAnswer: ${p.answer}`;
}

function toolAnswerCode(rng: Random, p: Problem): string {
  switch (p.kind) {
    case 'multiStep':
      return firstStepCode(p);
    case 'chain':
      return chainFirstCode(p);
    case 'errorProne':
      return `print(${writtenExpression(p)})`;
    default:
      return p.expression === undefined ? p.solution : expressionSnippet(rng, p).code;
  }
}

const NOTEBOOK_INTROS = ['Let us compute it.', 'A quick check in Python:', 'We can run this.', 'Here is the computation.'];

/**
 * A python block, its output block exactly as the environment writes it, and a sentence that uses
 * the value (sometimes as an answer line: `answerLineShare`); sometimes after a line of prose. Never a question. An
 * error-prone problem's notebook is a session whose first cell raises and second cell fixes it, a
 * multi-step problem's one whose second cell adds up the digits the first printed, a chain's one
 * cell per division by 7 (or, sometimes, the one-cell loop; at `chainStopShare` closing early after
 * a `True`); a gcd's is a
 * repair session half the time, a search problem's a guess checked and adjusted half the time.
 */
export function notebookDocument(rng: Random, p: Problem, answerLineShare?: number, chainStopShare?: number): string {
  if (p.kind === 'errorProne') return timesRepairSession(rng, p, answerLineShare);
  if (p.kind === 'multiStep') return digitSumChainSession(rng, p, answerLineShare);
  if (p.kind === 'chain') return chainSession(rng, p, answerLineShare, chainStopShare);
  if (p.family === 'gcd' && rng.next() < 0.5) return importRepairSession(rng, p, answerLineShare);
  if (p.kind === 'search' && rng.next() < 0.5) return guessCheckSession(rng, p, answerLineShare);
  const snippet = p.expression === undefined ? { code: p.solution, output: String(p.answer) } : rng.next() < 0.8 ? expressionSnippet(rng, p) : builtinSnippet(rng);
  const intro = rng.next() < 0.3 ? `${rng.pick(NOTEBOOK_INTROS)}\n` : '';
  const sentence = closingSentence(rng, snippet.output, answerLineShare);
  return `${intro}\`\`\`python\n${snippet.code}\n\`\`\`\n\`\`\`output\n${snippet.output}\n\`\`\`\n${sentence}`;
}

const PROSE_TEMPLATES: ((rng: Random) => string)[] = [
  (rng) => `The bus leaves at ${rng.int(1, 12)} and the trip takes ${rng.int(5, 55)} minutes.`,
  (rng) => `Room ${rng.int(100, 999)} is on floor ${rng.int(1, 9)}.`,
  (rng) => `She read ${rng.int(2, 60)} pages on day ${rng.int(1, 30)}.`,
  (rng) => `The box holds ${rng.int(2, 48)} cups and weighs ${rng.int(1, 20)} kg.`,
  (rng) => `In ${rng.int(1900, 2030)} the town had ${rng.int(100, 9999)} people.`,
];

/** A sentence with numbers in it, and no arithmetic facts: plain text for the model to read. */
export function proseDocument(rng: Random): string {
  return rng.pick(PROSE_TEMPLATES)(rng);
}
