/**
 * Slow motion through one RL step (as GAN Lab steps through its training): the button beside Step
 * runs one step whose stages (rollouts, Python runs, rewards, baselines and advantages, update)
 * each wait for Next (or the right-arrow key, or N). A panel names the stages, the current one
 * marked, lights the stage of the RL loop it belongs to (LoopDiagram), and shows one group: a table
 * of its answers (what each wrote, its code calls, reward, baseline and advantage) beside one
 * chosen answer in full, then that answer's advantage as a sum and coloured by its per-token
 * advantages, then the step's figures. Each stage fits a projector's 1280x720 without scrolling; at
 * the curves' new point the panel shrinks to a strip below them. Finish runs the rest at once.
 */
import { useEffect, useRef, useState } from 'react';
import type { StageAnswer, StepStage, StepStageName } from '../../core/rl/stepStages';
import { useLab } from '../LabContext';
import { AdvantageTokens } from './AdvantageTokens';
import { LoopDiagram } from './LoopDiagram';
import { loopStageOf } from './loopStage';
import { threeDecimals } from './figureText';
import { ADVANTAGE_PART_NAMES, advantageSum, signedAdvantage } from './advantageArithmetic';
import { TranscriptSegments } from './TranscriptSegments';

/** What a step's figure reads when its groups were all filtered out. */
const NO_UPDATE = 'none (no update)';

const STAGE_TEXT: Record<StepStageName, { title: string; explains: string }> = {
  rollouts: {
    title: 'Rollouts',
    explains: 'The model answers every question of the step several times (each try is a rollout): one question and its answers are a group. Here is one group.',
  },
  python: {
    title: 'Python runs',
    explains:
      'Each closed code block ran in the sandbox as the answer was written, and its output was pasted in (amber: the model did not write it, so it is not trained on).',
  },
  rewards: {
    title: 'Rewards',
    explains: 'Each answer scores 1 if its final number is right, else 0. Nothing rewards using code.',
  },
  advantages: {
    title: 'Baselines and advantages',
    explains:
      "An answer's advantage is how much better it did than expected (its baseline), scaled so a step's pushes have a steady size. Groups all right or all wrong teach nothing and are dropped (the group filter).",
  },
  update: {
    title: 'Update',
    explains: "The model's numbers are changed a little, once for each minibatch of the kept answers: answers with a positive advantage become more likely, the others less. The step's figures:",
  },
};

const STAGES = Object.keys(STAGE_TEXT) as StepStageName[];

interface View {
  stage: StepStage | null;
  /** The worker is computing the next stage. */
  working: boolean;
  /** The step is over: its point is on the curves. */
  done: boolean;
}

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.getAttribute('role') === 'tab');

export function SlowMotionStep({ disabled, onActiveChange }: { disabled: boolean; onActiveChange: (active: boolean) => void }) {
  const { controller } = useLab();
  const [view, setView] = useState<View | null>(null);
  const next = useRef<(() => void) | null>(null);
  const finishing = useRef(false);

  const advance = () => {
    const release = next.current;
    if (!release) return;
    next.current = null;
    setView((v) => v && { ...v, working: true });
    release();
  };
  const finish = () => {
    finishing.current = true;
    advance();
  };

  const open = view !== null;
  useEffect(() => onActiveChange(open), [open, onActiveChange]);

  const start = async () => {
    finishing.current = false;
    setView({ stage: null, working: true, done: false });
    try {
      await controller.slowMotionStep(async (stage) => {
        setView({ stage, working: finishing.current, done: false });
        if (!finishing.current) await new Promise<void>((resolve) => (next.current = resolve));
      });
    } finally {
      // Done or failed: the panel says which (a failed step never reached the update stage).
      setView((v) => v && { ...v, working: false, done: true });
    }
  };

  const waiting = view !== null && !view.working && !view.done;
  useEffect(() => {
    if (!waiting) return;
    const onKey = (event: KeyboardEvent) => {
      if ((event.key === 'ArrowRight' || event.key === 'n' || event.key === 'N') && !typing(event.target) && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        advance();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [waiting]);

  return (
    <>
      <button type="button" data-testid="slow-motion-button" disabled={disabled || open} onClick={() => void start()} title="One RL step, stage by stage">
        Slow motion step
      </button>
      {view && <SlowMotionPanel view={view} onNext={advance} onFinish={finish} onClose={() => setView(null)} />}
    </>
  );
}

function SlowMotionPanel({ view, onNext, onFinish, onClose }: { view: View; onNext: () => void; onFinish: () => void; onClose: () => void }) {
  const { stage, working, done } = view;
  const reached = stage ? STAGES.indexOf(stage.stage) : -1;
  const current = done ? STAGES.length : reached;
  return (
    <section className={done ? 'slow-motion slow-motion-finished' : 'slow-motion'} role="region" aria-label="Slow motion step" data-testid="slow-motion">
      <header className="slow-motion-head">
        <div className="slow-motion-title">
          <h2>Slow motion{stage ? `: step ${stage.step}` : ''}</h2>
          <LoopDiagram lit={loopStageOf(stage?.stage ?? null, done)} />
        </div>
        <ol className="slow-motion-stages">
          {[...STAGES.map((name) => STAGE_TEXT[name].title), 'New point'].map((title, i) => (
            <li key={title} className={i === current ? 'stage-current' : i < current ? 'stage-done' : ''} aria-current={i === current ? 'step' : undefined} data-testid="slow-motion-stage">
              {title}
            </li>
          ))}
        </ol>
      </header>
      <div className="slow-motion-body">
        {done ? (
          <p data-testid="slow-motion-done">
            {stage?.stage === 'update' ? `The curves have a new point at step ${stage.step}.` : 'The step did not finish: see the message above.'}
          </p>
        ) : stage === null ? (
          <p className="empty">The model is writing its answers…</p>
        ) : (
          <StageView stage={stage} />
        )}
      </div>
      <footer className="slow-motion-buttons">
        {done ? (
          <button type="button" className="primary" data-testid="slow-motion-close" onClick={onClose} autoFocus>
            Close
          </button>
        ) : (
          <>
            <span className="slow-motion-hint">{working ? 'working…' : 'Next: → or N'}</span>
            <button type="button" className="primary" data-testid="slow-motion-next" disabled={working} onClick={onNext}>
              Next
            </button>
            <button type="button" data-testid="slow-motion-finish" disabled={working} onClick={onFinish} title="Run the rest of the step without stopping">
              Finish
            </button>
          </>
        )}
      </footer>
    </section>
  );
}

/** What an answer's code calls came to: "2 ran, 1 error", "1 not run (Nmax)", "none". */
function callSummary(answer: StageAnswer, ran: boolean): string {
  if (answer.calls.length === 0) return 'none';
  if (!ran) return String(answer.calls.length);
  const executed = answer.calls.filter((c) => c.output !== null);
  const errors = executed.filter((c) => c.ok === false).length;
  const skipped = answer.calls.length - executed.length;
  return [`${executed.length} ran`, errors > 0 && `${errors} error${errors === 1 ? '' : 's'}`, skipped > 0 && `${skipped} not run (Nmax)`]
    .filter(Boolean)
    .join(', ');
}

/** The answer shown in full until the student picks another: the first whose code ran, else the first. */
const firstWithOutput = (answers: StageAnswer[]) => Math.max(0, answers.findIndex((a) => a.calls.some((c) => c.output !== null)));

/** What the baseline and the normalisation are, for a student redoing the sum. */
const PART_NOTES: Record<StepStage['algorithm'], string> = {
  ppo: "The critic is a second output of the model that learns to guess the reward; its value is that guess, averaged over the answer's characters (tokens). Batch mean and std (standard deviation: how spread out the figures are) are over every token of every kept answer in the step. Each token has its own advantage (the colours): the figure is their mean.",
  'reinforce++': "The group mean is the group's mean reward; batch mean and std (standard deviation: how spread out the figures are) of (reward − group mean) are over every character (token) of every kept answer in the step.",
  grpo: "The group mean and std (standard deviation: how spread out the rewards are) are of the group's rewards (the std plus 0.000001); nothing is shifted across the batch.",
};

function StageView({ stage }: { stage: StepStage }) {
  const { group } = stage;
  const at = STAGES.indexOf(stage.stage);
  const shows = (name: StepStageName) => at >= STAGES.indexOf(name);
  const [chosen, setChosen] = useState<number | null>(null);
  const shown = chosen ?? firstWithOutput(group.answers);
  const answer = group.answers[shown];
  const names = ADVANTAGE_PART_NAMES[stage.algorithm];
  const credited = shows('advantages') && group.kept === true;

  return (
    <div className="slow-motion-stage" data-testid={`slow-motion-${stage.stage}`}>
      <p className="slow-motion-explains">{STAGE_TEXT[stage.stage].explains}</p>
      <p className="slow-motion-question">
        Group {group.index + 1} of {group.count}: <span className="segment-prompt">{group.prompt.trim()}</span> (expected {group.expected})
        {shows('rewards') && group.meanReward !== null && <> · group mean reward {group.meanReward.toFixed(3)}</>}
        {group.kept === false && <> · dropped by the group filter: no update from it</>}
      </p>
      <div className="slow-motion-columns">
        <div className="slow-motion-group">
          <table className="slow-motion-answers">
            <thead>
              <tr>
                <th scope="col">answer</th>
                <th scope="col" className="answer-preview">it wrote</th>
                <th scope="col">code calls</th>
                {shows('rewards') && <th scope="col">reward</th>}
                {credited && <th scope="col">{names.baseline}</th>}
                {credited && <th scope="col">advantage</th>}
              </tr>
            </thead>
            <tbody>
              {group.answers.map((a, i) => (
                <tr key={i} className={i === shown ? 'answer-shown' : ''} data-testid="slow-motion-answer">
                  <td>
                    <button type="button" className="chip" aria-pressed={i === shown} onClick={() => setChosen(i)} title="Show this answer in full">
                      {i + 1}
                    </button>
                  </td>
                  <td className="answer-preview">{a.segments.filter((g) => g.kind === 'policy').map((g) => g.text).join(' ')}</td>
                  <td className="answer-calls">{callSummary(a, shows('python'))}</td>
                  {shows('rewards') && (
                    <td className={`reward ${a.reward! > 0 ? 'reward-ok' : 'reward-no'}`} data-testid="slow-motion-reward">
                      {a.reward}
                    </td>
                  )}
                  {credited && <td data-testid="slow-motion-baseline">{a.parts?.baseline.toFixed(3)}</td>}
                  {credited && <td data-testid="slow-motion-advantage">{a.advantage === null ? '' : signedAdvantage(a.advantage)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
          {credited && answer.parts && answer.reward !== null && answer.advantage !== null && (
            <div className="slow-motion-arithmetic" data-testid="slow-motion-arithmetic">
              <p>
                advantage = (reward − {names.baseline}
                {names.shift && <> − {names.shift}</>}) ÷ {names.scale}
              </p>
              <p>
                answer {shown + 1}: <span data-testid="slow-motion-sum">{advantageSum(stage.algorithm, answer.reward, answer.parts)}</span> ={' '}
                <strong>{signedAdvantage(answer.advantage)}</strong>
              </p>
              <p className="slow-motion-note">{PART_NOTES[stage.algorithm]}</p>
            </div>
          )}
          {stage.metrics && (
            <dl className="slow-motion-metrics" data-testid="slow-motion-metrics">
              {(
                [
                  ['answers right (batch accuracy)', stage.metrics.accuracy, NO_UPDATE],
                  ['uses code (code-call frequency)', stage.metrics.codeCallFrequency, NO_UPDATE],
                  ['groups kept (filter pass rate)', stage.metrics.filterPassRate, NO_UPDATE],
                  ['size of the change (gradient norm)', stage.metrics.gradNorm, NO_UPDATE],
                  // At KL weight 0 the start model is not run, so an update has no drift figure.
                  ['drift from the start model (KL)', stage.metrics.kl, stage.metrics.gradNorm === null ? NO_UPDATE : 'not measured (KL weight 0)'],
                ] as const
              ).map(([label, value, whenNone]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{value === null ? whenNone : threeDecimals(value)}</dd>
                </div>
              ))}
            </dl>
          )}
        </div>
        <div className="slow-motion-shown" data-testid="slow-motion-shown">
          {credited && answer.tokens ? (
            <>
              <p className="slow-motion-caption">
                Answer {shown + 1}, each token coloured by its advantage (green: made more likely, red: less; amber: sandbox output, not trained on):
              </p>
              <AdvantageTokens tokens={answer.tokens} />
            </>
          ) : (
            <>
              <p className="slow-motion-caption">Answer {shown + 1} in full:</p>
              <pre className="transcript">
                <TranscriptSegments segments={answer.segments} pendingEnv={!shows('python')} />
              </pre>
            </>
          )}
        </div>
      </div>
    </div>
  );
}
