/**
 * "Words used here": every term of the glossary (glossary.ts) with its plain explanation, in a
 * modal dialog opened from the header, by click or keyboard; Escape closes it. It opens at its top.
 */
import { useRef } from 'react';
import { glossaryEntries } from '../glossary';
import { openAtTop } from './openAtTop';

export function GlossaryDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" className="explain-button" data-testid="glossary-button" aria-haspopup="dialog" onClick={() => dialog.current && openAtTop(dialog.current)}>
        Words used here
      </button>
      <dialog ref={dialog} className="explainer glossary" data-testid="glossary" aria-labelledby="glossary-title">
        <form method="dialog" className="dialog-head">
          <h2 id="glossary-title">Words used here</h2>
          <button type="submit" data-testid="glossary-close">
            Close
          </button>
        </form>
        <dl>
          {glossaryEntries().map(([term, explains]) => (
            <div key={term} data-testid="glossary-entry">
              <dt>{term}</dt>
              <dd>{explains}</dd>
            </div>
          ))}
        </dl>
      </dialog>
    </>
  );
}
