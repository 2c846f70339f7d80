/**
 * The calls of a cold-start trace, per kind: the step-by-step tool solution an RL rollout would
 * make. Each call after the first is written from the previous call's REAL output (a chain's next
 * division copies the last printed number, a digit sum copies the printed digits), so a trace shows
 * the model reading the tool, never a value computed outside the sandbox.
 */
import { divisionCode } from '../corpus/chainSessions';
import type { Random } from '../random';
import type { PythonSandbox, RunOptions, RunResult } from '../sandbox/protocol';
import { chainStartOf } from '../tasks/chainFamilies';
import { writtenExpression } from '../tasks/errorProneFamilies';
import { firstStepExpression } from '../tasks/multiStepFamilies';
import { MAX_DEPTH, type Problem } from '../tasks/problem';

/** Share of error-prone traces that copy `a x b` first, fail, and repair; the rest write `*` at once. */
export const REPAIR_SHARE = 0.5;

export type TracePlan =
  /** Arithmetic: one call, the expression in one of its code forms. */
  | { kind: 'expression'; expression: string; code: string }
  /** Compose and search: one call, the problem's solution program. */
  | { kind: 'program'; code: string }
  /** Error-prone written with `*` at once: one call. */
  | { kind: 'fixed'; written: string; code: string }
  /** Error-prone: `print(a x b)` as written (a SyntaxError), then the call with `*`. */
  | { kind: 'repair'; written: string; code: string }
  /** Multi-step: the first step's value, then the sum of the digits it printed. */
  | { kind: 'digitSum'; first: string }
  /** Chain: the corpus's division cell (`divisionCode`) from the start, each next call copying the last quotient, until 7 no longer divides the number divided. */
  | { kind: 'division'; start: number };

/** One executed call of a trace. */
export interface TraceCall {
  code: string;
  result: RunResult;
}

/** Python that computes an arithmetic problem's value; some families also get a second, equivalent form. */
export function expressionCode(expression: string, family: string, rng: Random): string {
  const alternatives: string[] = [`print(${expression})`];
  if (family === 'sumOfTerms') alternatives.push(`print(sum([${expression.split('+').join(', ')}]))`);
  if (family === 'productPlusTerm') {
    const [product, term] = expression.split('+');
    alternatives.push(`x = ${product}\nprint(x + ${term})`);
  }
  if (family === 'power') alternatives.push(`print(pow(${expression.split('**').join(', ')}))`);
  if (family === 'modulo') alternatives.push(`print(${expression.replace('%', ' % ')})`);
  return rng.pick(alternatives);
}

export function planFor(problem: Problem, rng: Random): TracePlan {
  switch (problem.kind) {
    case 'arithmetic': {
      const expression = problem.expression!;
      return { kind: 'expression', expression, code: expressionCode(expression, problem.family, rng) };
    }
    case 'compose':
    case 'search':
      return { kind: 'program', code: problem.solution };
    case 'errorProne':
      return { kind: rng.next() < REPAIR_SHARE ? 'repair' : 'fixed', written: writtenExpression(problem), code: problem.solution };
    case 'multiStep':
      return { kind: 'digitSum', first: firstStepExpression(problem) };
    case 'chain':
      return { kind: 'division', start: chainStartOf(problem) };
  }
}

/** The integer a successful run printed (its whole stdout), else null. */
export function printedInteger(result: RunResult): string | null {
  const printed = result.stdout.trim();
  return result.ok && /^-?\d+$/.test(printed) ? printed : null;
}

/** The quotient a division cell printed and whether 7 divided the number it divided (`2401 True`), else null. */
function printedQuotient(result: RunResult): { left: string; divisible: boolean } | null {
  const match = /^(\d+) (True|False)$/.exec(result.stdout.trim());
  return result.ok && match ? { left: match[1], divisible: match[2] === 'True' } : null;
}

/**
 * The answer the plan's calls printed: the last call's whole output as an integer; for a chain, the
 * number its last call divided when 7 did not divide it (the quotient the call before printed), or
 * the last quotient when the calls stopped at MAX_DEPTH exact divisions (no chain is deeper).
 */
export function printedAnswer(plan: TracePlan, calls: TraceCall[]): string | null {
  if (plan.kind !== 'division') return printedInteger(calls[calls.length - 1].result);
  const last = printedQuotient(calls[calls.length - 1].result);
  if (last === null) return null;
  return last.divisible ? last.left : calls.length > 1 ? (printedQuotient(calls[calls.length - 2].result)?.left ?? null) : null;
}

/**
 * Runs the plan's calls in the sandbox, in order. Null when a call the next one reads printed no
 * integer, or when a repair's copied call did not fail with the SyntaxError the question invites
 * (then there is nothing to repair). The last call's output is checked by the caller.
 */
export async function runPlan(plan: TracePlan, sandbox: PythonSandbox, runOptions: RunOptions): Promise<TraceCall[] | null> {
  const calls: TraceCall[] = [];
  const run = async (code: string) => {
    const result = await sandbox.run(code, runOptions);
    calls.push({ code, result });
    return result;
  };
  switch (plan.kind) {
    case 'expression':
    case 'program':
    case 'fixed':
      await run(plan.code);
      return calls;
    case 'repair': {
      const copied = await run(`print(${plan.written})`);
      if (copied.ok || copied.error?.type !== 'SyntaxError') return null;
      await run(plan.code);
      return calls;
    }
    case 'digitSum': {
      const value = printedInteger(await run(`print(${plan.first})`));
      if (value === null) return null;
      await run(`print(${[...value].join('+')})`);
      return calls;
    }
    case 'division': {
      let n = plan.start;
      // At most MAX_DEPTH calls: a chain of depth d takes d + 1 (the last says 7 no longer divides),
      // but after MAX_DEPTH exact divisions the quotient is the answer, and the trace stays within
      // the cap. Output that 7 always divides cannot loop forever either.
      while (calls.length < MAX_DEPTH) {
        const printed = printedQuotient(await run(divisionCode(n)));
        if (printed === null) return null;
        if (!printed.divisible) break;
        n = Number(printed.left);
      }
      return calls;
    }
  }
}
