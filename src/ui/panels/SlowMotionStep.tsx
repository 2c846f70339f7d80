/**
 * Slow motion through one RL step (as GAN Lab steps through its training): the button beside Step
 * runs one step whose stages (rollouts, Python runs, rewards, baselines and advantages, update)
 * each wait for Next (or the right-arrow key, or N). A panel names the stages, the current one
 * marked, and shows one group's answers: their code and output, rewards, advantages, and one answer
 * coloured by its per-token advantages; then the curves' new point. Finish runs the rest at once.
 */
import { useEffect, useRef, useState } from 'react';
import type { StepStage, StepStageName } from '../../core/rl/stepStages';
import { useLab } from '../LabContext';
import { AdvantageTokens } from './AdvantageTokens';

const STAGE_TEXT: Record<StepStageName, { title: string; explains: string }> = {
  rollouts: {
    title: 'Rollouts',
    explains: 'The model answers every question of the step several times: one question and its answers are a group. Here is one group.',
  },
  python: {
    title: 'Python runs',
    explains:
      'Each closed python block ran in the sandbox as the answer was written, and its output was pasted in (amber: the model did not write it, so it is not trained on).',
  },
  rewards: {
    title: 'Rewards',
    explains: 'Each answer scores 1 if its final number is right, else 0. Nothing rewards using code.',
  },
  advantages: {
    title: 'Baselines and advantages',
    explains:
      "An answer's advantage is how much better it did than its group's baseline (the group's mean reward, or the critic's estimate for PPO). Groups all right or all wrong teach nothing and are dropped (the group filter).",
  },
  update: {
    title: 'Update',
    explains: 'One gradient step makes answers with a positive advantage more likely and the others less. The step\'s figures:',
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
    <section className="slow-motion" role="region" aria-label="Slow motion step" data-testid="slow-motion">
      <header className="slow-motion-head">
        <h2>Slow motion{stage ? `: step ${stage.step}` : ''}</h2>
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

function StageView({ stage }: { stage: StepStage }) {
  const { group } = stage;
  const at = STAGES.indexOf(stage.stage);
  const shows = (name: StepStageName) => at >= STAGES.indexOf(name);
  const withTokens = group.answers.map((a, i) => [i, Math.abs(a.advantage ?? 0)] as const).filter(([i]) => group.answers[i].tokens !== null);
  const strongest = withTokens.length === 0 ? null : withTokens.reduce((best, x) => (x[1] > best[1] ? x : best))[0];
  const [chosen, setChosen] = useState<number | null>(null);
  const coloured = chosen !== null && group.answers[chosen]?.tokens ? chosen : strongest;

  return (
    <div data-testid={`slow-motion-${stage.stage}`}>
      <p className="slow-motion-explains">{STAGE_TEXT[stage.stage].explains}</p>
      <p className="slow-motion-question">
        Group {group.index + 1} of {group.count}: <span className="segment-prompt">{group.prompt.trim()}</span> (expected {group.expected})
        {shows('rewards') && group.meanReward !== null && <> · group mean reward {group.meanReward.toFixed(2)}</>}
        {group.kept === false && <> · dropped by the group filter: no update from it</>}
      </p>
      <ol className="slow-motion-answers">
        {group.answers.map((answer, i) => (
          <li key={i} className="slow-motion-answer" data-testid="slow-motion-answer">
            <header>
              <span>answer {i + 1}</span>
              {answer.reward !== null && (
                <span className={`reward ${answer.reward > 0 ? 'reward-ok' : 'reward-no'}`} data-testid="slow-motion-reward">
                  reward {answer.reward}
                </span>
              )}
              {answer.advantage !== null && (
                <span data-testid="slow-motion-advantage">
                  advantage {answer.advantage >= 0 ? '+' : ''}
                  {answer.advantage.toFixed(2)}
                </span>
              )}
              {answer.tokens && (
                <button type="button" className="chip" aria-pressed={coloured === i} onClick={() => setChosen(i)}>
                  colour by token
                </button>
              )}
            </header>
            <pre className="transcript">
              {answer.segments.map((segment, k) =>
                segment.kind === 'policy' ? (
                  <span key={k} className="segment-policy">
                    {segment.text}
                  </span>
                ) : shows('python') ? (
                  <span key={k} className="segment-env">
                    {segment.text}
                  </span>
                ) : (
                  <span key={k} className="segment-env segment-pending">
                    {' [the sandbox\'s output: next stage] '}
                  </span>
                ),
              )}
            </pre>
            {shows('python') && answer.calls.length > 0 && (
              <ul className="slow-motion-calls">
                {answer.calls.map((call, k) => (
                  <li key={k} data-testid="slow-motion-call">
                    call {k + 1}: <code>{call.code}</code> → {call.output === null ? 'not run (Nmax reached)' : <code className="segment-env">{call.output}</code>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {shows('advantages') && coloured !== null && (
        <div className="slow-motion-colouring">
          <p>
            Answer {coloured + 1}, each token coloured by its advantage (green: made more likely, red: less; amber: sandbox output, not
            trained on):
          </p>
          <AdvantageTokens tokens={group.answers[coloured].tokens!} />
        </div>
      )}
      {stage.metrics && (
        <dl className="slow-motion-metrics" data-testid="slow-motion-metrics">
          {(
            [
              ['answers right (batch accuracy)', stage.metrics.accuracy],
              ['uses code (code-call frequency)', stage.metrics.codeCallFrequency],
              ['groups kept (filter pass rate)', stage.metrics.filterPassRate],
              ['gradient norm', stage.metrics.gradNorm],
              ['KL to the start model', stage.metrics.kl],
            ] as const
          ).map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value === null ? 'none (no update)' : value.toFixed(3)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
