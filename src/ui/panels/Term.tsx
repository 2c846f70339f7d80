/**
 * A word on screen a class may not know, with its glossary explanation as a title (hover) and a
 * dotted underline that says there is one; the glossary dialog has them all for keyboard and touch.
 */
import type { ReactNode } from 'react';
import { GLOSSARY, type GlossaryTerm } from '../glossary';

export function Term({ term, children }: { term: GlossaryTerm; children?: ReactNode }) {
  return (
    <span className="term" title={GLOSSARY[term]} data-term={term}>
      {children ?? term}
    </span>
  );
}
