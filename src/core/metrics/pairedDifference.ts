/**
 * The difference of two arms' pass@1 on the same problems, with its paired standard error: the
 * sample standard deviation of the per-problem differences over sqrt(n). Two arms scored on the same
 * problems mostly agree problem by problem, so this is far below sqrt(a^2 + b^2) of two
 * independent blocks (issue 11 asks for at most 0.02 between two Nmax arms).
 */
import { meanOrNull, standardErrorOfMean } from './means';

export interface PairedDifference {
  /** pass@1 of arm b minus pass@1 of arm a. */
  difference: number;
  standardError: number;
}

/** b minus a, problem by problem; both must score the same problems in the same order. */
export function pairedDifference(a: readonly number[], b: readonly number[]): PairedDifference {
  if (a.length !== b.length || a.length === 0) throw new Error(`paired arms need the same problems: ${a.length} vs ${b.length}`);
  const differences = b.map((x, i) => x - a[i]);
  return { difference: meanOrNull(differences)!, standardError: standardErrorOfMean(differences) };
}
