/**
 * Training rows for the update's tests (the unit tests and e2e/harness/gradientWorkers.ts): 6 prompt
 * tokens and 4 to 40 response tokens each, some masked as environment tokens, random figures, seeded.
 * Their many lengths cut into many chunks.
 */
import { Random } from '../src/core/random';
import type { TrainingSequence } from '../src/core/rl/trainingBatch';
import { VOCAB_SIZE } from '../src/core/tokenizer';

export function trainingRows(count: number, seed: number): TrainingSequence[] {
  const rng = new Random(seed);
  return Array.from({ length: count }, () => {
    const response = rng.int(4, 40);
    const ids = Array.from({ length: 7 + response }, () => rng.int(3, VOCAB_SIZE - 1));
    const mask = Array.from({ length: response }, (_, i) => (i > 2 && i < 8 && response > 20 ? 0 : 1));
    const numbers = () => Array.from({ length: response }, () => rng.normal());
    return {
      ids,
      responseStart: 7,
      policyMask: mask,
      oldLogProbs: numbers().map((x) => -2 + 0.1 * x),
      oldValues: numbers(),
      advantages: numbers(),
      returns: numbers(),
      refLogProbs: numbers().map((x) => -2 + 0.1 * x),
    };
  });
}
