/** Where an answer of "Ask the model" stands, in words: being written, its Python running, or done with its calls counted. */
import type { ModelAnswer } from '../../core/rollout/answerQuestion';

export function answerStatusText(answer: Pick<ModelAnswer, 'pythonRunning' | 'done' | 'calls' | 'endedWithEos'>): string {
  if (answer.pythonRunning) return 'Python is running…';
  if (!answer.done) return 'writing…';
  const ran = answer.calls.filter((call) => call.output !== null).length;
  const calls = ran === 0 ? 'no Python ran' : `${ran} Python call${ran === 1 ? '' : 's'} ran`;
  return answer.endedWithEos ? `done: ${calls}` : `stopped at the answer length limit: ${calls}`;
}
