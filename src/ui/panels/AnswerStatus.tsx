/** The status line under an answer of "Ask the model" (answerStatusText.ts). */
import type { ModelAnswer } from '../../core/rollout/answerQuestion';
import { answerStatusText } from './answerStatusText';

export function AnswerStatus({ answer }: { answer: ModelAnswer }) {
  return (
    <p className={answer.done ? 'ask-status' : 'ask-status ask-status-working'} data-testid="ask-status" aria-live="polite">
      {answerStatusText(answer)}
    </p>
  );
}
