/** A config saved before kindMix, its multiStep share, dualClip, learningRateDecaySteps or promptSampling existed loads with the values that reproduce its run. */
import { describe, expect, it } from 'vitest';
import { configErrors, PRESETS, withSavedConfigDefaults, type ExperimentConfig } from '../src/core/experiment';
import { checkTrainerStateJson } from '../src/core/run/trainerState';

function savedBeforeKinds(): ExperimentConfig {
  const {
    kindMix: _kindMix,
    dualClip: _dualClip,
    learningRateDecaySteps: _decay,
    promptSampling: _sampling,
    ...old
  } = { ...PRESETS.classroom, learningRateDecaySteps: 4, promptSampling: 'stratified' as const };
  return old as ExperimentConfig;
}

describe('withSavedConfigDefaults', () => {
  it('gives an old config arithmetic only, no dual clip, a constant learning rate and independent draws, so it validates; a new config keeps its values', () => {
    const old = savedBeforeKinds();
    expect(Object.keys(configErrors(old)).sort()).toEqual(['dualClip', 'kindMix', 'learningRateDecaySteps', 'promptSampling']);
    const upgraded = withSavedConfigDefaults(old);
    expect(configErrors(upgraded)).toEqual({});
    expect(upgraded.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 });
    expect(upgraded.dualClip).toBe(0);
    expect(upgraded.learningRateDecaySteps).toBe(0);
    expect(upgraded.promptSampling).toBe('independent');
    expect(withSavedConfigDefaults(PRESETS.classroom)).toEqual(PRESETS.classroom);
    const decaying = { ...PRESETS.classroom, learningRateDecaySteps: 4, promptSampling: 'stratified' as const };
    expect(withSavedConfigDefaults(decaying)).toEqual(decaying);
    expect(withSavedConfigDefaults(null)).toBeNull();
  });

  it('gives a kind mix saved before the multiStep or the chain kind a share of 0 for it, and keeps the other shares', () => {
    const { multiStep: _multiStep, chain: _chain, ...fourKinds } = PRESETS.classroom.kindMix;
    const old = { ...PRESETS.classroom, kindMix: fourKinds } as ExperimentConfig;
    expect(Object.keys(configErrors(old))).toEqual(['kindMix']);
    const upgraded = withSavedConfigDefaults(old);
    expect(upgraded.kindMix).toEqual({ ...fourKinds, multiStep: 0, chain: 0 });
    expect(configErrors(upgraded)).toEqual({});
    const fiveKinds = { ...fourKinds, multiStep: 0.2 };
    expect(withSavedConfigDefaults({ ...PRESETS.classroom, kindMix: fiveKinds } as ExperimentConfig).kindMix).toEqual({ ...fiveKinds, chain: 0 });
  });

  it('is applied where a saved trainer state is read', () => {
    const read = checkTrainerStateJson({
      step: 3,
      config: savedBeforeKinds(),
      random: { problems: 1, samples: 2, shuffle: 3 },
      reference: { fingerprint: 'f', source: 's' },
      optimizer: { iterations: 3, accBeta1: 0.729, accBeta2: 0.997 },
    });
    expect(read.config.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 });
    expect(read.config.dualClip).toBe(0);
    expect(read.config.learningRateDecaySteps).toBe(0);
    expect(read.config.promptSampling).toBe('independent');
  });
});
