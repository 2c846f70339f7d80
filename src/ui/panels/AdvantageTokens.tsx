/**
 * One answer coloured token by token by its advantage, in the rollout inspector's transcript
 * style: green tokens are made more likely by the update, red ones less, the stronger the colour
 * the larger the push; the sandbox's output keeps its amber (no loss, so no advantage).
 */
import type { AdvantageToken } from '../../core/rl/stepStages';

/** Background of a policy token: its advantage against the answer's largest, as green or red. */
function tokenColour(advantage: number, scale: number): string {
  const strength = scale === 0 ? 0 : Math.min(1, Math.abs(advantage) / scale);
  const [r, g, b] = advantage >= 0 ? [22, 163, 74] : [220, 38, 38];
  return `rgba(${r}, ${g}, ${b}, ${(0.08 + 0.5 * strength).toFixed(3)})`;
}

export function AdvantageTokens({ tokens }: { tokens: AdvantageToken[] }) {
  const scale = Math.max(0, ...tokens.map((t) => Math.abs(t.advantage)));
  return (
    <pre className="transcript advantage-tokens" data-testid="advantage-tokens">
      {tokens.map((token, i) =>
        token.policy ? (
          <span
            key={i}
            className="segment-policy"
            data-advantage={token.advantage.toFixed(3)}
            style={{ background: tokenColour(token.advantage, scale) }}
            title={`advantage ${token.advantage.toFixed(3)}`}
          >
            {token.text}
          </span>
        ) : (
          <span key={i} className="segment-env" title="sandbox output: no loss, no advantage">
            {token.text}
          </span>
        ),
      )}
    </pre>
  );
}
