/**
 * The learning rate of each RL step. Constant by default; with learningRateDecaySteps = N > 0 it
 * decays in inverse time, lr / (1 + (step - 1) / N) (Keras' InverseTimeDecay): halved after N
 * steps, a third after 2N. The sum of the rates grows as the logarithm of the step, so progress
 * that tracks the summed updates spreads evenly over log-steps, the axis of ZeroTIR's scaling law.
 */
import type { ExperimentConfig } from '../experiment';

export function learningRateAt(config: Pick<ExperimentConfig, 'learningRate' | 'learningRateDecaySteps'>, step: number): number {
  if (config.learningRateDecaySteps === 0) return config.learningRate;
  return config.learningRate / (1 + Math.max(step - 1, 0) / config.learningRateDecaySteps);
}
