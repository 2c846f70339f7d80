/**
 * The latest rollouts as the model wrote them: the prompt, the policy's text (its ```python
 * blocks included), the sandbox's output spliced in and marked as environment tokens (no loss on
 * them), the expected answer and the reward. Filters pick correct, wrong, code-using or
 * code-erroring answers.
 */
import { memo, useDeferredValue, useState } from 'react';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import { useLabState } from '../LabContext';
import { selectedRun } from '../state/labStore';
import { TranscriptSegments } from './TranscriptSegments';

type SampleFilter = 'all' | 'correct' | 'wrong' | 'code' | 'errored';

const FILTERS: [SampleFilter, string, (s: RolloutSample) => boolean][] = [
  ['all', 'all', () => true],
  ['correct', 'correct', (s) => s.reward > 0],
  ['wrong', 'wrong', (s) => s.reward <= 0],
  ['code', 'used code', (s) => s.calls.some((c) => c.executed)],
  ['errored', 'errored code', (s) => s.calls.some((c) => c.executed && c.ok === false)],
];

const EMPTY: RolloutSample[] = [];

export function RolloutInspector({ limit = 12 }: { limit?: number }) {
  const [filter, setFilter] = useState<SampleFilter>('all');
  // Rendered in an interruptible pass: a step's new cards never hold up input or the charts.
  const samples = useDeferredValue(useLabState((s) => selectedRun(s)?.samples ?? EMPTY));
  const keep = FILTERS.find(([name]) => name === filter)![2];
  const shown = samples.filter(keep).slice(0, limit);

  return (
    <section className="panel inspector" data-testid="rollout-inspector" aria-labelledby="inspector-title">
      <div className="panel-head">
        <h2 id="inspector-title">Rollout inspector</h2>
        <div className="filters" role="radiogroup" aria-label="Show">
          {FILTERS.map(([name, label, test]) => (
            <button
              type="button"
              key={name}
              role="radio"
              aria-checked={filter === name}
              className={filter === name ? 'chip chip-on' : 'chip'}
              data-testid={`filter-${name}`}
              onClick={() => setFilter(name)}
            >
              {label} <span className="chip-count">{samples.filter(test).length}</span>
            </button>
          ))}
        </div>
      </div>
      <p className="legend">
        <span className="segment-policy">model text</span> is sampled by the policy and trained on;{' '}
        <span className="segment-env">tool output</span> is inserted by the sandbox: environment tokens, no loss.
      </p>
      {shown.length === 0 ? (
        <p className="empty">{samples.length === 0 ? 'Samples appear here after the first step.' : 'No sample matches this filter.'}</p>
      ) : (
        <ol className="samples">
          {shown.map((sample, i) => (
            <SampleCard key={`${sample.step}-${i}`} sample={sample} />
          ))}
        </ol>
      )}
    </section>
  );
}

export const SampleCard = memo(function SampleCard({ sample, testId = 'rollout-sample' }: { sample: RolloutSample; testId?: string }) {
  const correct = sample.reward > 0;
  const executed = sample.calls.filter((c) => c.executed);
  return (
    <li className={`sample ${correct ? 'sample-correct' : 'sample-wrong'}`} data-testid={testId}>
      <header>
        <span className={`reward ${correct ? 'reward-ok' : 'reward-no'}`}>{correct ? '✓ reward 1' : '✗ reward 0'}</span>
        <span>step {sample.step}</span>
        <span>{sample.tier}</span>
        <span>expected {sample.expected}</span>
        <span>
          {executed.length} call{executed.length === 1 ? '' : 's'}
          {executed.some((c) => c.ok === false) ? ` (${executed.filter((c) => c.ok === false).map((c) => c.errorType ?? 'error').join(', ')})` : ''}
        </span>
        {!sample.endedWithEos && <span title="The answer hit the token cap">cut off</span>}
      </header>
      <pre className="transcript">
        <span className="segment-prompt">{sample.prompt}</span>
        <TranscriptSegments segments={sample.segments} />
      </pre>
    </li>
  );
});
