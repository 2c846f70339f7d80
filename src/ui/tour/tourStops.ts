/**
 * The first-visit tour's stops: each points at a real part of the screen (a CSS selector) and says
 * what it is for in a sentence or two. A stop whose part is not on screen (presenter mode, hide=)
 * is left out.
 */
export interface TourStop {
  /** Where the part is: a CSS selector. */
  target: string;
  title: string;
  text: string;
}

export const TOUR_STOPS: TourStop[] = [
  {
    target: '[data-testid=train-button]',
    title: 'Train',
    text: 'Press Train (or Space) and the model starts practising: in each step it answers a batch of maths questions (sums, searches, chains of divisions and more), gets 1 for a right answer and 0 for a wrong one, and is changed a little towards what worked. Step does one round; Slow motion step shows one round stage by stage.',
  },
  {
    target: '[data-testid=headline-charts]',
    title: 'The curves',
    text: 'As it learns, three curves should rise together: answers right, answers that use Python, and answer length. Click a point on a curve to read the answers of that step.',
  },
  {
    target: '[data-testid=current-rollout]',
    title: 'The answers',
    text: 'What the model wrote: its Python code, the output the sandbox pasted in (amber: the model did not write it) and whether it got the answer right. "Ask the model" in the tabs below lets you type your own question.',
  },
  {
    target: '.sidebar .knobs',
    title: 'The knobs',
    text: 'Settings for a run. Nmax is how many times one answer may run Python (0 means never); the seed makes a run repeatable. Each "?" explains its knob.',
  },
  {
    target: '[data-testid=explain-button]',
    title: 'Help',
    text: '"What am I watching?" explains the experiment and the keys (and starts this tour again); "Words used here" explains the words of the screen a class may not know.',
  },
];
