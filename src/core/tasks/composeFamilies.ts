/**
 * Compose: the question names a computation (count, digit sum, gcd) that the code must express;
 * there is no expression to copy. Each solution uses the idioms the corpus's notebooks show
 * (`range`, `len`, `sum`, a generator, `math`).
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';

function problem(family: string, question: string, solution: string, answer: number): Problem {
  return { id: `${family}:${question}`, question, solution, answer, tier: 'hard', kind: 'compose', family };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

/** The largest exponent keeping base**exponent below 2^53, so JS and Python agree on the digits. */
function maxSafeExponent(base: number): number {
  let e = 1;
  while (BigInt(base) ** BigInt(e + 1) < 2n ** 53n) e++;
  return e;
}

export const COMPOSE_FAMILIES = {
  multiplesBelow: (rng: Random) => {
    const k = rng.int(3, 19);
    const n = rng.int(100, 999);
    return problem('multiplesBelow', `how many multiples of ${k} are below ${n}?`, `print(len(range(${k}, ${n}, ${k})))`, Math.floor((n - 1) / k));
  },
  digitSum: (rng: Random) => {
    const base = rng.int(2, 9);
    const exponent = rng.int(10, maxSafeExponent(base));
    const digits = String(BigInt(base) ** BigInt(exponent));
    const answer = [...digits].reduce((s, d) => s + Number(d), 0);
    const power = `${base}**${exponent}`;
    return problem('digitSum', `what is the sum of the digits of ${power}?`, `print(sum(int(d) for d in str(${power})))`, answer);
  },
  gcd: (rng: Random) => {
    const g = rng.int(2, 30);
    const m = rng.int(2, 12);
    const n = rng.int(2, 12);
    const a = g * m;
    const b = g * n;
    return problem('gcd', `what is the gcd of ${a} and ${b}?`, `import math\nprint(math.gcd(${a}, ${b}))`, gcd(a, b));
  },
  primesBelow: (rng: Random) => {
    const n = rng.int(20, 300);
    let count = 0;
    for (let i = 2; i < n; i++) if (isPrime(i)) count++;
    return problem('primesBelow', `how many primes are below ${n}?`, `print(sum(all(i % d for d in range(2, i)) for i in range(2, ${n})))`, count);
  },
} satisfies Record<string, ProblemGenerator>;
