/**
 * A paired gain split by the depth of its problems (problemDepth: the calls a step-by-step solution
 * takes), parts that add up to it. A problem no deeper than the smaller budget needs no call that
 * budget lacks (bar repairs of failed calls), so its part is mostly the two trainings differing,
 * not the budget: the split says where a gain came from.
 */
import { meanOrNull } from './means';
import { pairedDifference } from './pairedDifference';

/**
 * The part of a gain the problems of one depth make: their paired differences summed over all the
 * problems scored (the difference over them times their share), so the parts add up to the gain.
 */
export interface DepthPart {
  depth: number;
  problems: number;
  /** pass@1 over these problems of the arm gained from, then of the arm gained to. */
  fromPassAtOne: number;
  toPassAtOne: number;
  part: number;
  /** Paired, as the gain's: the evaluation's noise only. */
  standardError: number;
}

/**
 * `to` minus `from`, problem by problem, by the depth of each problem, ascending. Each arm's report
 * lists its own problems' depths (none, or an empty list, in a report from before them): the gain is
 * split only where both list the same depth for every problem both scored.
 */
export function gainByDepth(from: readonly number[], to: readonly number[], fromDepths: readonly number[] | null, toDepths: readonly number[] | null): DepthPart[] {
  const count = from.length;
  const depths = fromDepths ?? [];
  if (count === 0 || to.length !== count || depths.length !== count || toDepths?.length !== count || depths.some((d, i) => d !== toDepths[i])) return [];
  return [...new Set(depths)]
    .sort((a, b) => a - b)
    .map((depth) => {
      const at = depths.flatMap((d, i) => (d === depth ? [i] : []));
      const fromScores = at.map((i) => from[i]);
      const toScores = at.map((i) => to[i]);
      const { difference, standardError } = pairedDifference(fromScores, toScores);
      const share = at.length / count;
      return { depth, problems: at.length, fromPassAtOne: meanOrNull(fromScores)!, toPassAtOne: meanOrNull(toScores)!, part: difference * share, standardError: standardError * share };
    });
}
