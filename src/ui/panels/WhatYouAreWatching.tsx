/**
 * "What am I watching?": the experiment explained for a class in five short parts (the model, the
 * tool, the reward, one step with the RL loop drawn, the curves) and the keyboard shortcuts, opened
 * by a button in the header or the ? key: a modal dialog, so it is reachable by click or keyboard and
 * Escape closes it. It starts the guided tour again, and holds the tour, which opens by itself on a
 * first visit.
 */
import { useRef } from 'react';
import { SHORTCUT_HELP } from '../state/shortcuts';
import { GuidedTour } from '../tour/GuidedTour';
import { openTour } from '../tour/tourState';
import { LoopDiagram } from './LoopDiagram';
import { openAtTop } from './openAtTop';
import { Term } from './Term';
import { useShortcut } from './useShortcut';

export function WhatYouAreWatching() {
  const dialog = useRef<HTMLDialogElement>(null);
  const open = () => dialog.current && !dialog.current.open && openAtTop(dialog.current);
  useShortcut('help', open);
  return (
    <>
      <button type="button" className="explain-button" data-testid="explain-button" aria-haspopup="dialog" onClick={open} title="The experiment explained (key: ?)">
        What am I watching?
      </button>
      <dialog ref={dialog} className="explainer" data-testid="explainer" aria-labelledby="explainer-title">
        <form method="dialog" className="dialog-head">
          <h2 id="explainer-title">What you are watching</h2>
          <button type="submit" data-testid="explainer-close">
            Close
          </button>
        </form>
        <dl>
          <dt>The model</dt>
          <dd>
            A tiny language model (a GPT of about 160,000 parameters that writes one character at a time), trained first on made-up
            maths text and notebook snippets. It has seen Python blocks followed by their output, but never a question answered by
            writing code, running it and using the result.
          </dd>
          <dt>The tool</dt>
          <dd>
            When the model writes a <code>```python</code> block (started from the ReTool model: a <code>&lt;code&gt;</code> block) and closes it, the code runs in a sandbox in your browser and the
            output is pasted into the answer (shown in amber: the model did not write it, so it is not trained on). <em>Nmax</em> is how
            many times one answer may do this; 0 means no tool.
          </dd>
          <dt>The reward</dt>
          <dd>
            1 if the answer's final number is right, else 0. Nothing rewards using code: the model has to discover that code gets
            answers right.
          </dd>
          <dt>One step</dt>
          <dd>
            The model answers a batch of questions several times each (a <em>group</em>); each answer is scored; answers that did
            better than expected (than the rest of their group, or with PPO than the <Term term="critic" />&rsquo;s guess) are made more likely, the others less (reinforcement learning: <Term term="PPO" />, <Term term="Reinforce++" /> or
            <Term term="GRPO" />).
            <LoopDiagram />
          </dd>
          <dt>The curves</dt>
          <dd>
            <strong>Answers right (accuracy)</strong> should rise: blue is this step's batch, orange a fixed held-out test set
            measured every few steps. <strong>Uses code (code-call frequency)</strong>, the share of answers that ran Python, should
            climb from near 0 towards 1 as the model finds that code pays. <strong>Answer length</strong> grows with it, because the
            code and its output take <Term term="token">tokens</Term>. All three rising together with training steps is the &ldquo;agent RL scaling law&rdquo;
            of the <Term term="ZeroTIR" /> paper. In the classroom preset (40 steps, seed 1) the held-out accuracy went from 0.22 to 0.86 here, and the
            share of answers using code from 0.14 at the first step to 0.94 at the end; with Nmax 0 (no tool) accuracy stayed under 0.1.
          </dd>
          <dt>Keys</dt>
          <dd>
            <ul className="shortcut-list" data-testid="shortcut-list">
              {SHORTCUT_HELP.map(([keys, does]) => (
                <li key={keys}>
                  <kbd>{keys}</kbd> {does}
                </li>
              ))}
            </ul>
            The button &ldquo;Words used here&rdquo; explains the other words of the screen a class may not know.
          </dd>
          <dt>The tour</dt>
          <dd>
            <button
              type="button"
              data-testid="tour-open"
              onClick={() => {
                dialog.current?.close();
                openTour();
              }}
            >
              Take the tour
            </button>{' '}
            again: a short walk from the Train button to the help.
          </dd>
        </dl>
      </dialog>
      <GuidedTour />
    </>
  );
}
