/**
 * What a cold-start trace says around its calls. A plain trace opens with one short line and says
 * nothing between calls but a repair's or a digit sum's cue. A verbose trace opens with sentences
 * that restate the question and plan the steps, narrates each step, and closes with a sentence
 * before the answer line: length that RL can shed (ReTool's response length falls, then rises).
 * No text starts a line with `Answer:`, so the answer line stays the only one the reward check reads.
 */
import type { Problem } from '../tasks/problem';
import type { TracePlan } from './tracePlans';

export const SHORT_REASONING = ['Use Python.', 'Let me compute.', 'Run it in code.', 'Python can do it.', 'Compute it.'];

/** The verbose openings a trace can draw from: two per plan kind. */
export function verboseOpenings(problem: Problem, plan: TracePlan): string[] {
  const q = problem.question;
  switch (plan.kind) {
    case 'expression':
      return [
        `We need the value of ${plan.expression}. Doing it by hand risks a slip, so let me compute it in Python.`,
        `The question asks for ${plan.expression}. Python computes it exactly, so I print it and read the result.`,
      ];
    case 'program':
      return problem.kind === 'search'
        ? [
            `The question: ${q} The answer is the candidate that passes the check, so a loop can find it.`,
            `We need to know: ${q} Trying numbers by hand is slow; a loop tests each one and prints the match.`,
          ]
        : [
            `The question: ${q} There is no expression to copy, so I write a short program that computes it.`,
            `We need to know: ${q} A few lines of Python compute it directly. Let me run them.`,
          ];
    case 'fixed':
      return [
        `We need ${plan.written}. Here x means times, and Python writes times as *, so the code uses *.`,
        `The question asks for ${plan.written}. In Python the times sign is *, not x, so I write it with *.`,
      ];
    case 'repair':
      return [
        `We need ${plan.written}. Let me compute it in Python, copying the expression as it is written.`,
        `The question asks for ${plan.written}. That is too much to do in my head, so let me run it in Python.`,
      ];
    case 'digitSum':
      return [
        `We need the digit sum of ${plan.first}. First compute ${plan.first}, then add up the digits of the result.`,
        `Two steps: the value of ${plan.first}, then the sum of its digits. Let me run the first step in Python.`,
      ];
    case 'halving':
      return [
        `We need to halve ${plan.start} until it is odd. Each halving is one step. Let me run the first step in Python.`,
        `${plan.start} is even, so it halves at least once. I halve it in Python, one call per step, until it is odd.`,
      ];
  }
}

/**
 * The policy text before a call after the first, given the previous call's output as the model read
 * it. A plain chain says nothing: the even number just printed is the cue, and a depth-5 chain in
 * ReTool's tags needs the room (five calls are about 330 of the 400 tokens).
 */
export function linkText(plan: TracePlan, previousOutput: string, verbose: boolean): string {
  switch (plan.kind) {
    case 'repair':
      return verbose ? 'Python has no x operator: the times sign is *. Run it again.' : 'Use * for x.';
    case 'digitSum':
      return verbose ? `That is ${previousOutput}. The second step adds up its digits.` : 'Now add its digits.';
    case 'halving':
      return verbose ? `${previousOutput} is still even, so halve it again.` : '';
    default:
      throw new Error(`a ${plan.kind} trace makes one call`);
  }
}

/** A verbose trace's sentence before its answer line. */
export function closingText(plan: TracePlan, answer: string): string {
  if (plan.kind === 'digitSum') return `The digits add up to ${answer}.`;
  if (plan.kind === 'halving') return `${answer} is odd, so the halving stops.`;
  return `So the answer is ${answer}.`;
}
