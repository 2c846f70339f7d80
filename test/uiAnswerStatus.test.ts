/** The status line of "Ask the model": writing, Python running, done with the calls that ran counted, or stopped at the cap. */
import { describe, expect, it } from 'vitest';
import { answerStatusText } from '../src/ui/panels/answerStatusText';

const call = (output: string | null) => ({ code: 'print(1)', output, ok: output === null ? null : true });

describe('answerStatusText', () => {
  it('says what the model is doing while it answers', () => {
    expect(answerStatusText({ pythonRunning: false, done: false, calls: [], endedWithEos: false })).toBe('writing…');
    expect(answerStatusText({ pythonRunning: true, done: false, calls: [call(null)], endedWithEos: false })).toBe('Python is running…');
  });

  it('counts the calls that ran once done, and says when the answer hit the length limit', () => {
    expect(answerStatusText({ pythonRunning: false, done: true, calls: [], endedWithEos: true })).toBe('done: no Python ran');
    expect(answerStatusText({ pythonRunning: false, done: true, calls: [call('42')], endedWithEos: true })).toBe('done: 1 Python call ran');
    expect(answerStatusText({ pythonRunning: false, done: true, calls: [call('1'), call('2'), call(null)], endedWithEos: false })).toBe(
      'stopped at the answer length limit: 2 Python calls ran',
    );
  });
});
