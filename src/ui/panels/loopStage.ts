/**
 * The RL loop drawn for a class (LoopDiagram.tsx): its five stages in plain words, and which of them
 * a step is in: the stage a slow-motion step is showing (StepStage), or the stage a training step
 * has reached (the worker's 'stage' events).
 */
import type { StepStageName } from '../../core/rl/stepStages';
import type { RunningStage } from '../state/labStore';

export const LOOP_STAGES = ['question', 'write', 'python', 'reward', 'update'] as const;
export type LoopStage = (typeof LOOP_STAGES)[number];

export const LOOP_STAGE_TEXT: Record<LoopStage, { title: string; explains: string }> = {
  question: { title: 'Question', explains: 'A practice question, asked several times: its answers are a group.' },
  write: { title: 'Model writes', explains: 'The model writes each answer one character at a time, and may open a code block (```python, or <code> from the ReTool start).' },
  python: { title: 'Python runs', explains: 'Each closed code block runs in the sandbox, and its output is pasted into the answer.' },
  reward: { title: 'Reward', explains: '1 if the final number is right, else 0.' },
  update: { title: 'Update', explains: 'The model is changed a little towards the answers that did better than expected.' },
};

/** Slow motion's stage as a stage of the loop (the advantages decide the update, so they are its start). */
const LOOP_STAGE_OF: Record<StepStageName, LoopStage> = {
  rollouts: 'write',
  python: 'python',
  rewards: 'reward',
  advantages: 'update',
  update: 'update',
};

/**
 * The loop's stage while slow motion shows `stage` (null: the answers are still being written);
 * once the step is done the loop is back at its start, the next step's questions.
 */
export function loopStageOf(stage: StepStageName | null, done: boolean): LoopStage {
  if (done) return 'question';
  return stage === null ? 'write' : LOOP_STAGE_OF[stage];
}

/** The loop's stage of the shown run's step under way (Train, Step); null when none runs. */
export function runningLoopStage(running: RunningStage | null, shownRunId: string | null): LoopStage | null {
  return running !== null && running.runId === shownRunId ? loopStageOf(running.stage, running.done) : null;
}

/**
 * How long the diagram above the newest answer keeps a stage lit at least (heldValues.ts): long
 * enough to be seen, short enough that the three stages a step's end sends at once are drawn in
 * 0.6 s, within the next step's writing.
 */
export const LOOP_STAGE_HOLD_MS = 200;
