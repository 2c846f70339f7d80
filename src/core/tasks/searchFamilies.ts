/**
 * Search: the answer is the candidate that passes a check. One loop finds it in a single call;
 * guessing and checking takes several calls, which is where convergence to one call can show.
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';

function problem(family: string, question: string, solution: string, answer: number): Problem {
  return { id: `${family}:${question}`, question, solution, answer, tier: 'hard', kind: 'search', family };
}

export const SEARCH_FAMILIES = {
  cubeRoot: (rng: Random) => {
    const x = rng.int(10, 199);
    const cube = x ** 3;
    return problem('cubeRoot', `which x has x**3 = ${cube}?`, `for x in range(200):\n    if x**3 == ${cube}:\n        print(x)`, x);
  },
  smallestProduct: (rng: Random) => {
    const bound = rng.int(100, 9999);
    let n = 1;
    while (n * (n + 1) <= bound) n++;
    return problem(
      'smallestProduct',
      `what is the smallest n with n*(n+1) > ${bound}?`,
      `n = 1\nwhile n*(n+1) <= ${bound}:\n    n += 1\nprint(n)`,
      n,
    );
  },
} satisfies Record<string, ProblemGenerator>;
