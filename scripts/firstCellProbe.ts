/**
 * What a model's first call is for the error-prone questions (`what is 239 x 91?`): the question
 * copied with its `x` (which raises), `*` written at once, or no call. For each of the evaluation
 * set's error-prone problems, k answers sampled as `npm run eval` samples them (temperature 1,
 * top-p 0.7) at the given Nmax; then, among the copies, how many copied the question's digits
 * exactly, and how many the next call repaired into a right answer. The probe behind base stage 12
 * in docs/tasks.md.
 * Usage: npx tsx scripts/firstCellProbe.ts NMAX CHECKPOINT_DIR [CHECKPOINT_DIR ...]
 */
import { checkpointEpisodeLimits } from '../src/core/eval/checkpointLimits';
import { sandboxRunOptions } from '../src/core/experiment';
import { evaluateProblems } from '../src/core/eval/evaluate';
import { withNucleusFilter } from '../src/core/eval/nucleus';
import { episodeConfig } from '../src/core/rollout/episode';
import { writtenExpression } from '../src/core/tasks/errorProneFamilies';
import { evalSet } from '../src/core/tasks/splits';
import { loadCheckpointDir } from '../src/node/checkpointFiles';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { useNodeBackend } from '../src/node/tfBackend';

const K = 4;

async function probe(nmax: number, dir: string): Promise<void> {
  const { model, meta } = await loadCheckpointDir(dir);
  const limits = checkpointEpisodeLimits(meta);
  const problems = evalSet().filter((p) => p.kind === 'errorProne').flatMap((p) => Array.from({ length: K }, () => p));
  const sandbox = createNodeSandbox({ size: 2 });
  const { rollouts, rewards } = await evaluateProblems(withNucleusFilter(model, 1, 0.7), problems, {
    episode: episodeConfig(limits, nmax),
    sandbox,
    runOptions: sandboxRunOptions(limits),
    temperature: 1,
    seed: 0,
  });
  await sandbox.close();
  model.dispose();
  const count = { copied: 0, exact: 0, repaired: 0, direct: 0, none: 0 };
  rollouts.forEach(({ episode }, i) => {
    const calls = episode.calls.filter((c) => c.executed);
    if (calls.length === 0) return count.none++;
    if (!calls[0].code.includes(' x ')) return count.direct++;
    count.copied++;
    if (calls[0].code === `print(${writtenExpression(problems[i])})`) count.exact++;
    if (rewards[i] === 1 && calls[1]?.result?.ok) count.repaired++;
  });
  console.log(`${dir} at Nmax ${nmax}: ${problems.length} answers; first call copies the x: ${count.copied} (digits exact: ${count.exact}; the next call ran and the answer is right: ${count.repaired}); writes * at once: ${count.direct}; no call: ${count.none}`);
}

await useNodeBackend('wasm');
const [nmax, ...dirs] = process.argv.slice(2);
if (nmax === undefined || dirs.length === 0 || !/^\d+$/.test(nmax)) {
  console.error('usage: npx tsx scripts/firstCellProbe.ts NMAX CHECKPOINT_DIR [CHECKPOINT_DIR ...]');
  process.exit(2);
}
for (const dir of dirs) await probe(Number(nmax), dir);
