/**
 * The document kinds of the pretraining corpus. None shows the full tool loop
 * (question -> code -> output -> answer): that is what RL must discover.
 */
import type { Random } from '../random';
import { formatPrompt } from '../tasks/prompt';
import type { Problem } from '../tasks/problem';
import { builtinSnippet, expressionSnippet } from './pythonSnippets';

/** A question with its correct answer, sometimes after a short line of working. */
export function qaDocument(rng: Random, p: Problem): string {
  const v = p.answer;
  const working = [`${p.expression} = ${v}`, `We compute ${p.expression}, which is ${v}.`, `The result is ${v}.`];
  const response = rng.next() < 0.7 ? ` Answer: ${v}` : ` ${rng.pick(working)}\nAnswer: ${v}`;
  return formatPrompt(p) + response;
}

/** A question whose answer starts with a python block, then the answer line: no output block (the environment's part). */
export function toolQaDocument(rng: Random, p: Problem): string {
  const { code } = expressionSnippet(rng, p);
  return `${formatPrompt(p)} \`\`\`python\n${code}\n\`\`\`\nAnswer: ${p.answer}`;
}

const NOTEBOOK_INTROS = ['Let us compute it.', 'A quick check in Python:', 'We can run this.', 'Here is the computation.'];
// 'Answer: V' is the answer-line habit a notebook may close with. Measured: without it, the base
// model after an output block always wrote a notebook sentence, never the answer line the reward
// demands, and RL had no successful tool use to amplify. A notebook never has a question, so no
// document still shows the whole loop (question, code, output, answer).
const VALUE_SENTENCES = ['The value is V.', 'So the result is V.', 'That gives V.', 'We get V.', 'The output is V.', 'It prints V.', 'Answer: V'];

/**
 * A python block, its output block exactly as the environment writes it, and a sentence that uses
 * the value (sometimes as an answer line); sometimes after a line of prose. Never a question.
 */
export function notebookDocument(rng: Random, p: Problem): string {
  const snippet = rng.next() < 0.8 ? expressionSnippet(rng, p) : builtinSnippet(rng);
  const intro = rng.next() < 0.3 ? `${rng.pick(NOTEBOOK_INTROS)}\n` : '';
  const sentence = rng.pick(VALUE_SENTENCES).replace('V', snippet.output);
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
