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
    case 'division':
      return [
        `We need to divide ${plan.start} by 7 until 7 no longer divides it. Each division is one step. Let me run the first step in Python.`,
        `7 divides ${plan.start} at least once. I divide it in Python, one call per step, until 7 no longer divides it.`,
      ];
  }
}

/**
 * The policy text before a call after the first, given the previous call's output as the model read
 * it. A plain chain says nothing: the True the cell just printed is the cue, and a depth-5 chain in
 * ReTool's tags needs the room (its five calls fill most of the 400 tokens).
 */
export function linkText(plan: TracePlan, previousOutput: string, verbose: boolean): string {
  switch (plan.kind) {
    case 'repair':
      return verbose ? 'Python has no x operator: the times sign is *. Run it again.' : 'Use * for x.';
    case 'digitSum':
      return verbose ? `That is ${previousOutput}. The second step adds up its digits.` : 'Now add its digits.';
    case 'division':
      return verbose ? `7 divided it, so divide the quotient ${previousOutput.split(' ')[0]} again.` : '';
    default:
      throw new Error(`a ${plan.kind} trace makes one call`);
  }
}

/** A verbose trace's sentence before its answer line. */
export function closingText(plan: TracePlan, answer: string): string {
  if (plan.kind === 'digitSum') return `The digits add up to ${answer}.`;
  if (plan.kind === 'division') return `7 does not divide ${answer}, so the division stops.`;
  return `So the answer is ${answer}.`;
}
