/**
 * An answer's text as the inspector and slow motion draw it: the policy's text inline, each sandbox
 * output as one amber block (environment tokens, no loss on them).
 */
import type { SampleSegment } from '../../core/rollout/rolloutSample';
import { GLOSSARY } from '../glossary';

/** One sandbox output as a block; the newlines around it are the block's edges, so they are dropped. */
export function EnvBlock({ text }: { text: string }) {
  return (
    <span className="segment-env" data-testid="env-segment" title={`Environment tokens: ${GLOSSARY['environment tokens']}`}>
      <span className="env-tag" aria-hidden="true">
        sandbox output · not trained on
      </span>
      {text.replace(/^\n/, '').replace(/\n$/, '')}
    </span>
  );
}

/** `pendingEnv`: the outputs are not shown yet (slow motion before its Python stage). */
export function TranscriptSegments({ segments, pendingEnv = false }: { segments: SampleSegment[]; pendingEnv?: boolean }) {
  return segments.map((segment, j) =>
    segment.kind === 'policy' ? (
      <span key={j} className="segment-policy">
        {segment.text}
      </span>
    ) : pendingEnv ? (
      <span key={j} className="segment-env segment-pending">
        the sandbox's output: next stage
      </span>
    ) : (
      <EnvBlock key={j} text={segment.text} />
    ),
  );
}
