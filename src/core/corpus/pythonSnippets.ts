/**
 * Short python code that prints one value, in the forms a notebook or a tool-using answer takes.
 * Every value is computed here in JS with exact integer arithmetic, so the output shown next to
 * the code is what Python prints.
 */
import type { Random } from '../random';
import type { Problem } from '../tasks/problem';

export interface Snippet {
  code: string;
  /** What `print` writes, without the newline. */
  output: string;
}

const VARIABLE_NAMES = ['x', 'y', 'n', 'total', 'result', 'value'];

/** `print(expr)`, or the expression stored in a variable and printed. */
export function expressionSnippet(rng: Random, p: Problem): Snippet {
  const output = String(p.answer);
  if (rng.next() < 0.6) return { code: `print(${p.expression})`, output };
  const name = rng.pick(VARIABLE_NAMES);
  return { code: `${name} = ${p.expression}\nprint(${name})`, output };
}

const WORDS = ['cat', 'python', 'seven', 'notebook', 'apple', 'tree', 'sum', 'river'];

/** Builtins on small numbers and words, so code is seen doing more than the task families. */
export function builtinSnippet(rng: Random): Snippet {
  const a = rng.int(0, 99);
  const b = rng.int(0, 99);
  const c = rng.int(0, 99);
  switch (rng.int(0, 4)) {
    case 0:
      return { code: `print(max(${a}, ${b}, ${c}))`, output: String(Math.max(a, b, c)) };
    case 1:
      return { code: `print(min(${a}, ${b}))`, output: String(Math.min(a, b)) };
    case 2:
      return { code: `print(abs(${a}-${b}))`, output: String(Math.abs(a - b)) };
    case 3:
      return { code: `print(sum([${a}, ${b}, ${c}]))`, output: String(a + b + c) };
    default: {
      const word = rng.pick(WORDS);
      return { code: `print(len('${word}'))`, output: String(word.length) };
    }
  }
}
