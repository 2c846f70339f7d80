/**
 * "Ask the model": a student types a question and watches the shown run's model answer it as it
 * would in training, one character (token) at a time, its Python run in the sandbox (at most Nmax
 * times, from the knobs) and the output pasted in. Its likeliest answer (greedy), or one sampled
 * at the run's randomness from its seed, so asking again gives the same answer. Not while training.
 */
import { useState, type FormEvent } from 'react';
import type { ModelAnswer } from '../../core/rollout/answerQuestion';
import { MAX_QUESTION_CHARS, questionError } from '../../core/tasks/ownQuestion';
import { useLab, useLabShallow } from '../LabContext';
import { selectedRun } from '../state/labStore';
import { AnswerStatus } from './AnswerStatus';
import { Term } from './Term';
import { TranscriptSegments } from './TranscriptSegments';

interface Asked {
  label: string | null;
  answer: ModelAnswer | null;
}

export function AskModel() {
  const { controller } = useLab();
  const knobs = useLabShallow((s) => ({ nmax: s.config.nmax, temperature: s.config.temperature, seed: s.config.seed }));
  const { ready, training } = useLabShallow((s) => ({ ready: s.worker === 'ready' && s.busy === null, training: selectedRun(s)?.status === 'training' }));
  const [question, setQuestion] = useState('');
  const [greedy, setGreedy] = useState(true);
  const [asking, setAsking] = useState(false);
  const [asked, setAsked] = useState<Asked | null>(null);
  const canAsk = ready && !training && !asking && questionError(question) === null;

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    if (!canAsk) return;
    setAsking(true);
    setAsked({ label: null, answer: null });
    try {
      await controller.askModel(question, greedy, {
        onModel: (label) => setAsked((a) => ({ answer: a?.answer ?? null, label })),
        onAnswer: (answer) => setAsked((a) => ({ label: a?.label ?? null, answer })),
      });
    } finally {
      setAsking(false);
    }
  };

  return (
    <section className="panel ask-model" data-testid="ask-model" aria-labelledby="ask-model-title">
      <h2 id="ask-model-title">Ask the model</h2>
      <p className="hint">
        Type a question: the model answers it as it does in practice, one character at a time, and its Python runs in the <Term term="sandbox" /> (at most{' '}
        <Term term="Nmax" /> = {knobs.nmax} times, from the settings).
      </p>
      <form className="ask-form" onSubmit={(event) => void ask(event)}>
        <input
          type="text"
          aria-label="Your question"
          data-testid="ask-question"
          placeholder="what is 347*29+18?"
          maxLength={MAX_QUESTION_CHARS}
          value={question}
          onChange={(event) => setQuestion(event.target.value)}
        />
        <fieldset className="ask-how">
          <legend className="visually-hidden">How the model picks each character</legend>
          <label>
            <input type="radio" name="ask-how" data-testid="ask-greedy" checked={greedy} onChange={() => setGreedy(true)} /> its likeliest answer
          </label>
          <label>
            <input type="radio" name="ask-how" data-testid="ask-sampled" checked={!greedy} onChange={() => setGreedy(false)} /> a sampled answer (
            <Term term="temperature" /> {knobs.temperature}, <Term term="seed" /> {knobs.seed})
          </label>
        </fieldset>
        <button type="submit" className="primary" data-testid="ask-button" disabled={!canAsk}>
          Ask
        </button>
      </form>
      {training && <p className="hint">The model is training: pause it to ask a question.</p>}
      {asked && (
        <div className="ask-answer" data-testid="ask-answer">
          <p className="ask-who" data-testid="ask-who">
            {asked.label === null ? 'Loading the model…' : `Answered by ${asked.label}:`}
          </p>
          {asked.answer && (
            <>
              <pre className="transcript" data-testid="ask-transcript">
                <span className="segment-prompt">{asked.answer.prompt}</span>
                <TranscriptSegments segments={asked.answer.segments} />
              </pre>
              <AnswerStatus answer={asked.answer} />
            </>
          )}
        </div>
      )}
    </section>
  );
}
