/**
 * Whether a model divides again: for each chain of the evaluation set, the question and the first
 * j cells of its step-by-step solution (real division cells with their outputs, in ZeroTIR's
 * fences), then the model's probability that the next character opens another cell. Averaged by j
 * and by the last output's flag, with the corpus's division cell as it is now. This is the probe
 * behind base stage 10 in public/models/base/RECIPE.md (stage 9's figures came from a probe of the
 * same shape on that stage's cell, not kept).
 * Usage: npx tsx scripts/chainGoOnProbe.ts CHECKPOINT_DIR [CHECKPOINT_DIR ...]
 */
import * as tf from '@tensorflow/tfjs-core';
import { divisionCode, divisionOutput } from '../src/core/corpus/chainSessions';
import { cell } from '../src/core/corpus/notebookSessions';
import { chainStartOf, chainSteps } from '../src/core/tasks/chainFamilies';
import { formatPrompt } from '../src/core/tasks/prompt';
import { evalSet } from '../src/core/tasks/splits';
import { BOS, charId, encode } from '../src/core/tokenizer';
import { loadCheckpointDir } from '../src/node/checkpointFiles';
import { useNodeBackend } from '../src/node/tfBackend';

async function probe(dir: string): Promise<void> {
  const { model } = await loadCheckpointDir(dir);
  const fence = charId('`');
  const sums = new Map<string, { p: number; greedy: number; count: number }>();
  for (const problem of evalSet().filter((p) => p.kind === 'chain')) {
    // The numbers its cells divide: the start, then each quotient down to the number left.
    const start = chainStartOf(problem);
    const cells = [start, ...chainSteps(start)].map((n) => ({ text: cell(divisionCode(n), divisionOutput(n)), flag: divisionOutput(n).split(' ')[1] }));
    for (let j = 1; j <= cells.length; j++) {
      const context = [BOS, ...encode(`${formatPrompt(problem)} ${cells.slice(0, j).map((c) => c.text).join('')}`)];
      const probs = tf.tidy(() => tf.softmax(model.forward(tf.tensor2d([context], [1, context.length], 'int32')).logits.gather([context.length - 1], 1).squeeze()).dataSync());
      const key = `${j} ${cells[j - 1].flag}`;
      const sum = sums.get(key) ?? { p: 0, greedy: 0, count: 0 };
      sum.p += probs[fence];
      sum.greedy += probs.indexOf(Math.max(...probs)) === fence ? 1 : 0;
      sum.count++;
      sums.set(key, sum);
    }
  }
  model.dispose();
  console.log(`${dir}\ncells  last flag  chains  P(another cell)  greedy another`);
  for (const [key, s] of [...sums].sort()) {
    const [j, flag] = key.split(' ');
    console.log(`${j.padStart(5)}  ${flag.padEnd(9)}  ${String(s.count).padStart(6)}  ${(s.p / s.count).toFixed(3).padStart(15)}  ${`${s.greedy}/${s.count}`.padStart(14)}`);
  }
}

await useNodeBackend('wasm');
const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: npx tsx scripts/chainGoOnProbe.ts CHECKPOINT_DIR [CHECKPOINT_DIR ...]');
  process.exit(2);
}
for (const dir of dirs) await probe(dir);
