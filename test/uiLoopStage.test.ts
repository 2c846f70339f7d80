/** The RL loop diagram's lit stage follows slow motion's stages, and goes back to the question once the step is done. */
import { describe, expect, it } from 'vitest';
import { STEP_STAGES } from '../src/core/rl/stepStages';
import { LOOP_STAGES, loopStageOf } from '../src/ui/panels/loopStage';

describe('loopStageOf', () => {
  it('lights the model writing until the first stage arrives, then each stage of the step in loop order, then the next question', () => {
    const lit = [loopStageOf(null, false), ...STEP_STAGES.map((stage) => loopStageOf(stage, false)), loopStageOf('update', true)];
    expect(lit).toEqual(['write', 'write', 'python', 'reward', 'update', 'update', 'question']);
  });

  it('never goes backwards within a step', () => {
    const order = STEP_STAGES.map((stage) => LOOP_STAGES.indexOf(loopStageOf(stage, false)));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('goes back to the question after a step that did not finish too', () => {
    expect(loopStageOf('rollouts', true)).toBe('question');
    expect(loopStageOf(null, true)).toBe('question');
  });
});
