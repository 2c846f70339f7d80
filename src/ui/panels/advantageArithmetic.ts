/**
 * An answer's advantage as a sum a student can redo by hand, (reward − baseline − shift) ÷ scale,
 * with each part named for the algorithm that made it (slow motion's advantages stage).
 */
import type { Algorithm } from '../../core/experiment';
import type { AdvantageParts } from '../../core/rl/creditAssignment';

export interface AdvantagePartNames {
  baseline: string;
  /** null: the algorithm does not shift (grpo). */
  shift: string | null;
  scale: string;
}

export const ADVANTAGE_PART_NAMES: Record<Algorithm, AdvantagePartNames> = {
  ppo: { baseline: "critic's value", shift: 'batch mean', scale: 'batch std' },
  'reinforce++': { baseline: 'group mean', shift: 'batch mean', scale: 'batch std' },
  grpo: { baseline: 'group mean', shift: null, scale: 'group std' },
};

/** Three decimals: rounded parts still give the shown two-decimal advantage. */
const figure = (x: number) => x.toFixed(3);

/** "(1 − 0.125 − 0.020) ÷ 0.480" with the parts' figures; a negative term is added, not subtracted twice. */
export function advantageSum(algorithm: Algorithm, reward: number, parts: AdvantageParts): string {
  const minus = (x: number) => (x < 0 ? ` + ${figure(-x)}` : ` − ${figure(x)}`);
  const shift = ADVANTAGE_PART_NAMES[algorithm].shift === null ? '' : minus(parts.shift);
  return `(${reward}${minus(parts.baseline)}${shift}) ÷ ${figure(parts.scale)}`;
}

/** The advantage as a signed two-decimal figure, "+1.24" or "-0.81". */
export function signedAdvantage(advantage: number): string {
  return `${advantage >= 0 ? '+' : ''}${advantage.toFixed(2)}`;
}
