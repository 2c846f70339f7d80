/**
 * One answer coloured token by token by its advantage, in the rollout inspector's transcript
 * style: green tokens are made more likely by the update, red ones less, the stronger the colour
 * the larger the push; each sandbox output stays one amber block (no loss, so no advantage).
 */
import type { AdvantageToken } from '../../core/rl/stepStages';
import { EnvBlock } from './TranscriptSegments';

/** Background of a policy token: its advantage against the answer's largest, as green or red. */
function tokenColour(advantage: number, scale: number): string {
  const strength = scale === 0 ? 0 : Math.min(1, Math.abs(advantage) / scale);
  const [r, g, b] = advantage >= 0 ? [22, 163, 74] : [220, 38, 38];
  return `rgba(${r}, ${g}, ${b}, ${(0.08 + 0.5 * strength).toFixed(3)})`;
}

/** Policy tokens one by one; each run of environment tokens joined into one text (tokens are characters). */
function runs(tokens: AdvantageToken[]): (AdvantageToken | string)[] {
  const out: (AdvantageToken | string)[] = [];
  for (const token of tokens) {
    const last = out.length - 1;
    if (token.policy) out.push(token);
    else if (typeof out[last] === 'string') out[last] += token.text;
    else out.push(token.text);
  }
  return out;
}

export function AdvantageTokens({ tokens }: { tokens: AdvantageToken[] }) {
  const scale = Math.max(0, ...tokens.map((t) => Math.abs(t.advantage)));
  return (
    <pre className="transcript advantage-tokens" data-testid="advantage-tokens">
      {runs(tokens).map((run, i) =>
        typeof run === 'string' ? (
          <EnvBlock key={i} text={run} />
        ) : (
          <span
            key={i}
            className="segment-policy"
            data-advantage={run.advantage.toFixed(3)}
            style={{ background: tokenColour(run.advantage, scale) }}
            title={`advantage ${run.advantage.toFixed(3)}`}
          >
            {run.text}
          </span>
        ),
      )}
    </pre>
  );
}
