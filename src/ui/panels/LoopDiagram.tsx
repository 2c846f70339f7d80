/**
 * The RL loop as a picture: question, the model writes, Python runs, reward, update, and round
 * again. In slow motion the stage on screen is lit, above the newest answer the stage a training
 * step is in; in the explanation it is drawn unlit.
 */
import { LOOP_STAGE_TEXT, LOOP_STAGES, type LoopStage } from './loopStage';

/** `lit`: the stage drawn lit; `running`: where the step is now, which the picture may show a moment later (heldValues.ts). */
export function LoopDiagram({ lit = null, running = null }: { lit?: LoopStage | null; running?: LoopStage | null }) {
  return (
    <ol className="loop-diagram" aria-label="One RL step goes round this loop" data-testid="loop-diagram" data-lit={lit ?? undefined} data-running={running ?? undefined}>
      {LOOP_STAGES.map((stage) => (
        <li
          key={stage}
          className={stage === lit ? 'loop-stage loop-stage-lit' : 'loop-stage'}
          aria-current={stage === lit ? 'step' : undefined}
          title={LOOP_STAGE_TEXT[stage].explains}
          data-testid="loop-stage"
          data-stage={stage}
        >
          <span className="loop-box">{LOOP_STAGE_TEXT[stage].title}</span>
        </li>
      ))}
      <li className="loop-again" aria-label="and round again">
        ↺
      </li>
    </ol>
  );
}
