/**
 * The strict answer check. A prototype learned to game a loose checker (`18)))))...` scored because
 * it took the last integer on the line), so a response earns reward only when:
 * - exactly one line of the whole response starts with `Answer:` (after at most one space). Tool
 *   output lines count too: the checker reads only text, and a response that both prints an
 *   `Answer:` line from Python and writes one is two answers;
 * - that line is the last line and is exactly `Answer: <integer>`: one space after the colon, the
 *   integer in canonical form (no leading zeros, no `-0`, no `+`), nothing after it, not even a
 *   newline or a space. A single leading space is allowed because the response starts right after
 *   the prompt's `A:` (`A: Answer: 7`);
 * - the response ended with EOS, not at the length cap.
 */
import type { Problem } from './problem';

const ANSWER_LINE_START = /^ ?Answer:/;
const FINAL_ANSWER_LINE = /^ ?Answer: (0|-?[1-9]\d*)$/;

/** The integer of the response's final `Answer:` line when the response obeys the format above; else null. */
export function extractFinalAnswer(response: string): number | null {
  const lines = response.split('\n');
  const answerLines = lines.filter((line) => ANSWER_LINE_START.test(line));
  if (answerLines.length !== 1) return null;
  const match = FINAL_ANSWER_LINE.exec(lines[lines.length - 1]);
  if (match === null) return null;
  const value = Number(match[1]);
  return Number.isSafeInteger(value) ? value : null;
}

/** 1 when the response ended with EOS and its final answer equals the problem's; else 0. */
export function answerReward(response: string, endedWithEos: boolean, p: Problem): 0 | 1 {
  return endedWithEos && extractFinalAnswer(response) === p.answer ? 1 : 0;
}
