/**
 * Why code use takes off early in one run and late in another: the base model often gets the right
 * number from Python and then ends in prose ("The value is 18.") instead of the `Answer:` line the
 * strict reward requires, so a right tool result earns nothing. This measures that, per step.
 */
import type { Episode } from '../rollout/episode';

/**
 * Whether `stdout` holds `answer` at the start of a line, alone or as the first of the values one
 * `print` wrote (spaces around it allowed): the chain's division cell prints `53 True`, the
 * quotient and whether 7 divided the number divided.
 */
export function printedAnswerLine(stdout: string, answer: number): boolean {
  const expected = String(answer);
  return stdout.split('\n').some((line) => line.trim().split(/\s+/)[0] === expected);
}

/** Whether an executed call of `episode` printed `answer` at the start of a line (printedAnswerLine). */
export function toolPrintedAnswer(episode: Pick<Episode, 'calls'>, answer: number): boolean {
  return episode.calls.some((c) => c.executed && c.result !== undefined && printedAnswerLine(c.result.stdout, answer));
}

/**
 * Among responses whose tool output printed the right answer, the share that earned no reward (no
 * `Answer:` line, a malformed one, or another value); null when no tool output printed it.
 */
export function unclaimedToolAnswerShare(episodes: Pick<Episode, 'calls'>[], answers: number[], rewards: number[]): number | null {
  let printed = 0;
  let unclaimed = 0;
  episodes.forEach((episode, i) => {
    if (!toolPrintedAnswer(episode, answers[i])) return;
    printed++;
    if (rewards[i] <= 0) unclaimed++;
  });
  return printed === 0 ? null : unclaimed / printed;
}
