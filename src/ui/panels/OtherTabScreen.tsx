/**
 * What a tab shows while another tab of the browser has the lab (labTab.ts): on opening, or after
 * the lab moved away. "Use the lab here" takes it over; until the other tab has paused and saved,
 * the button says so.
 */
import { useState } from 'react';
import { takeLabHere } from '../labTab';

/** 'elsewhere': another tab had the lab when this one opened; 'moved': this tab had it and let it go. */
export type OtherTabReason = 'elsewhere' | 'moved';

export function OtherTabScreen({ reason }: { reason: OtherTabReason }) {
  const [taking, setTaking] = useState(false);
  const take = () => {
    setTaking(true);
    void takeLabHere();
  };
  return (
    <main className="other-tab" data-testid="other-tab" data-reason={reason}>
      <h1>TIR Lab</h1>
      {reason === 'elsewhere' ? (
        <p>
          The lab is open in another tab of this browser. It runs in one tab at a time: two tabs would train and save the same runs over each
          other.
        </p>
      ) : (
        <p>The lab moved to another tab of this browser. Training here was paused after its step, and every run was saved.</p>
      )}
      <p>
        <button type="button" className="primary" data-testid="use-lab-here" disabled={taking} onClick={take}>
          {taking ? 'Waiting for the other tab to pause and save…' : 'Use the lab here'}
        </button>
      </p>
      <p className="hint">
        {reason === 'elsewhere'
          ? 'The other tab pauses its training after the step under way and saves it; an evaluation or pretraining under way there stops. Its runs open here as it left them.'
          : 'The other tab pauses its training after the step under way and saves it; the runs open here as it left them.'}
      </p>
    </main>
  );
}
