/**
 * Notebook sessions of two cells: the priors for more than one call. A cell that raises is followed
 * by a fixed cell (the error shown exactly as the environment writes it), a cell that checks a
 * guess is followed by one that adjusts it, and a printed value's digits are added up in the next. Like every notebook, a session has no question, so no
 * document shows the whole loop (question, code, output, answer).
 */
import { formatToolOutput } from '../rollout/episode';
import type { RunResult } from '../sandbox/protocol';
import type { Random } from '../random';
import { writtenExpression } from '../tasks/errorProneFamilies';
import { firstStepExpression, firstStepValue } from '../tasks/multiStepFamilies';
import type { Problem } from '../tasks/problem';

/** The tool output cap of the presets: an error line is cut here, as the environment cuts it. */
export const CORPUS_OUTPUT_CHARS = 64;

const FIX_INTROS = ['Fixed:', 'Try again.', 'Use * for times.', 'Oops, fix it:', ''];
const IMPORT_INTROS = ['Import it first.', 'Fixed:', 'Try again.', ''];

export function cell(code: string, output: string): string {
  return `\`\`\`python\n${code}\n\`\`\`\n\`\`\`output\n${output}\n\`\`\`\n`;
}

function errorOutput(type: string, message: string): string {
  const result: RunResult = { ok: false, stdout: '', stderr: '', error: { type, message }, timedOut: false, truncated: false, durationMs: 0 };
  return formatToolOutput(result, CORPUS_OUTPUT_CHARS);
}

export function line(text: string): string {
  return text === '' ? '' : `${text}\n`;
}

/** `a x b` copied into Python, the SyntaxError, then the product with `*`. */
export function timesRepairSession(rng: Random, p: Problem, answerLineShare?: number): string {
  const wrong = cell(`print(${writtenExpression(p)})`, errorOutput('SyntaxError', 'SyntaxError: invalid syntax. Perhaps you forgot a comma?'));
  return `${wrong}${line(rng.pick(FIX_INTROS))}${cell(p.solution, String(p.answer))}${closingSentence(rng, String(p.answer), answerLineShare)}`;
}

/** `math.gcd` without the import, the NameError, then the solution with it. */
export function importRepairSession(rng: Random, p: Problem, answerLineShare?: number): string {
  const withoutImport = p.solution.replace(/^import math\n/, '');
  const wrong = cell(withoutImport, errorOutput('NameError', "NameError: name 'math' is not defined. Did you forget to import 'math'?"));
  return `${wrong}${line(rng.pick(IMPORT_INTROS))}${cell(p.solution, String(p.answer))}${closingSentence(rng, String(p.answer), answerLineShare)}`;
}

/** A cube or a product checked for a guess one or two below the answer, then for the answer. */
export function guessCheckSession(rng: Random, p: Problem, answerLineShare?: number): string {
  const guess = p.answer - rng.int(1, 2);
  // The answer line is drawn after the cells, so a recipe without a share draws what it drew before.
  const close = (prose: string) => (answerLineShare !== undefined && rng.next() < answerLineShare ? `${ANSWER_LINE}${p.answer}` : prose);
  if (p.family === 'cubeRoot') {
    return `${cell(`print(${guess}**3)`, String(guess ** 3))}Too small.\n${cell(`print(${p.answer}**3)`, String(p.answer ** 3))}${close(`So x is ${p.answer}.`)}`;
  }
  const bound = Number(/> (\d+)\?$/.exec(p.question)![1]);
  const product = (n: number) => `${n}*${n + 1}`;
  return `${cell(`print(${product(guess)})`, String(guess * (guess + 1)))}Not above ${bound} yet.\n${cell(`print(${product(p.answer)})`, String(p.answer * (p.answer + 1)))}${close(`So n is ${p.answer}.`)}`;
}

const DIGIT_SUM_INTROS = ['Now the digit sum:', 'Add up its digits.', 'Sum of the digits:', 'Then the digits:', ''];

/**
 * A multi-step problem's first step as code. `number` is a name no other snippet uses, so the
 * cell itself, next to its output, is the cue for the digit-sum cell that follows it in the
 * sessions: a tiny model attends to the code just above the output far more than to the question.
 */
export function firstStepCode(p: Problem): string {
  return `number = ${firstStepExpression(p)}\nprint(number)`;
}

/**
 * A value printed, then its digits added up in a second cell, copied from the output
 * (`print(1+0+0+6+3)`): the prior for a second call that uses the first one's result.
 */
export function digitSumChainSession(rng: Random, p: Problem, answerLineShare?: number): string {
  const value = String(firstStepValue(p));
  const first = cell(firstStepCode(p), value);
  const second = cell(`print(${[...value].join('+')})`, String(p.answer));
  return `${first}${line(rng.pick(DIGIT_SUM_INTROS))}${second}${closingSentence(rng, String(p.answer), answerLineShare)}`;
}

const ANSWER_LINE = 'Answer: ';

// The answer line is the habit a notebook may close with. Measured: without it, the base model
// after an output block always wrote a notebook sentence, never the answer line the reward demands,
// and RL had no successful tool use to amplify. A notebook never has a question, so no document
// still shows the whole loop (question, code, output, answer).
const PROSE_SENTENCES = ['The value is V.', 'So the result is V.', 'That gives V.', 'We get V.', 'The output is V.', 'It prints V.'];
const VALUE_SENTENCES = [...PROSE_SENTENCES, `${ANSWER_LINE}V`];

/**
 * The sentence that closes a notebook with `value`. Without a share (the recipes of base stages
 * 3-5) it is one of seven sentences, the answer line among them, drawn as those stages drew it;
 * with one, the answer line at that rate, else one of the six prose sentences.
 */
export function closingSentence(rng: Random, value: string, answerLineShare: number | undefined): string {
  const sentence = answerLineShare === undefined ? rng.pick(VALUE_SENTENCES) : rng.next() < answerLineShare ? `${ANSWER_LINE}V` : rng.pick(PROSE_SENTENCES);
  return sentence.replace('V', value);
}
