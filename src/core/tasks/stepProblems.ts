/**
 * A step's training problems. Drawn one by one, a batch of 16 holds the easy one-digit sums (which
 * the base model answers half the time) 0 to 4 times, so its accuracy jumps from step to step by
 * more than training moves it. Stratified, the step's problems are spread over the mix's families
 * by systematic sampling: each family gets its expected count rounded down or up, and so does each
 * kind and tier, since a kind's families lie next to each other on the line that is sampled.
 */
import type { Random } from '../random';
import { KIND_FAMILIES, TIER_FAMILIES, type FamilyName } from './families';
import { KINDS, TIERS, type Problem } from './problem';
import { trainProblem, trainProblemOf, type ProblemMix } from './splits';

export type PromptSampling = 'independent' | 'stratified';

/** Each family's share of the training problems under `mix`, in a fixed order (kind, then tier, then family). */
export function familyShares(mix: ProblemMix): [FamilyName, number][] {
  const kindTotal = KINDS.reduce((s, k) => s + mix.kindMix[k], 0);
  const tierTotal = TIERS.reduce((s, t) => s + mix.tierMix[t], 0);
  const shares: [FamilyName, number][] = [];
  for (const kind of KINDS) {
    const kindShare = mix.kindMix[kind] / kindTotal;
    if (kindShare === 0) continue;
    if (kind === 'arithmetic') {
      for (const tier of TIERS) {
        const families = TIER_FAMILIES[tier];
        for (const family of families) shares.push([family, (kindShare * mix.tierMix[tier]) / tierTotal / families.length]);
      }
    } else {
      const families = KIND_FAMILIES[kind];
      for (const family of families) shares.push([family, kindShare / families.length]);
    }
  }
  return shares.filter(([, share]) => share > 0);
}

/**
 * `count` systematic draws over the families' shares: points (u + i) / count with one uniform u,
 * each taking the family whose stretch of [0, 1) holds it. The problems come back in a random order,
 * so no minibatch holds one kind only.
 */
function stratifiedProblems(rng: Random, mix: ProblemMix, count: number): Problem[] {
  const shares = familyShares(mix);
  const offset = rng.next();
  const problems: Problem[] = [];
  let family = 0;
  let familyEnd = shares[0][1];
  for (let i = 0; i < count; i++) {
    const point = (offset + i) / count;
    while (point >= familyEnd && family < shares.length - 1) familyEnd += shares[++family][1];
    problems.push(trainProblemOf(rng, shares[family][0]));
  }
  return rng.permutation(count).map((i) => problems[i]);
}

/** The problems of one training step, drawn as `sampling` says. */
export function stepProblems(rng: Random, mix: ProblemMix, count: number, sampling: PromptSampling): Problem[] {
  if (sampling === 'stratified') return stratifiedProblems(rng, mix, count);
  return Array.from({ length: count }, () => trainProblem(rng, mix));
}
