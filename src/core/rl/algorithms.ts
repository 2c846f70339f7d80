/**
 * What each RL algorithm is made of, in one table (as verl's core_algos keeps its estimators by
 * name): credit assignment, the objective, the update and the export read these traits and never
 * test an algorithm's name.
 */
import type { Algorithm } from '../experiment';

export interface AlgorithmTraits {
  /**
   * Trains the value head: its values feed GAE, the objective adds the clipped value loss, the step
   * logs that loss, and an exported run gets a critic model.
   */
  usesCritic: boolean;
  /**
   * How a rollout's reward becomes its per-token advantage (creditAssignment.ts): GAE with the
   * critic's values, then batch whitening; reward minus its group's mean, then batch whitening; or
   * normalised within its group by the group's mean and std.
   */
  advantage: 'gae' | 'groupMeanThenWhiten' | 'groupNormalised';
}

export const ALGORITHMS: Readonly<Record<Algorithm, AlgorithmTraits>> = {
  ppo: { usesCritic: true, advantage: 'gae' },
  'reinforce++': { usesCritic: false, advantage: 'groupMeanThenWhiten' },
  grpo: { usesCritic: false, advantage: 'groupNormalised' },
};
