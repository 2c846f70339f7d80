/**
 * The synthetic "pretraining web": the recipe (what it is made of) and one document per call drawn
 * by it. The caller wraps each document in BOS/EOS. Questions come from the training sampler, so
 * no test-set expression is ever read. The recipe is plain JSON data: it is saved in the base
 * checkpoint's meta, so a checkpoint says what its model has read.
 */
import type { Random } from '../random';
import { KINDS, TIERS, type Kind, type Tier } from '../tasks/problem';
import { ARITHMETIC_ONLY, trainProblem, withLaterKindShares } from '../tasks/splits';
import { pickWeighted } from '../tasks/weightedChoice';
import { notebookDocument, proseDocument, qaDocument, toolQaDocument } from './documents';

export interface CorpusRecipe {
  /** Share of Q/A documents whose answer starts with a python block: the base model's prior for tool use. */
  toolPrior: number;
  /**
   * The same share for search questions alone (base stage 7): their loop, written with the
   * question's own numbers, is what makes some search outputs right before RL. Absent: toolPrior.
   */
  searchToolPrior?: number;
  /** Relative weights of the document kinds (need not sum to 1). */
  qaShare: number;
  notebookShare: number;
  proseShare: number;
  /** Relative weights of the tiers of arithmetic in Q/A documents and notebook snippets. */
  tierMix: Record<Tier, number>;
  /** Relative weights of the kinds of problem; a recipe saved before kinds existed reads as arithmetic only, before multiStep as none of it. */
  kindMix: Record<Kind, number>;
  /**
   * Share of notebooks that close with the answer line rather than a prose sentence. Absent (base
   * stages 1-5): one closing in seven, as those stages drew it.
   */
  answerLineShare?: number;
  /**
   * Share of error-prone Q/A documents answered with a python block that copies the question's
   * expression as written (`print(239 x 91)`, which raises), then the answer line (base stage 12):
   * the habit of copying that a repair then fixes. Absent (stages 1-11): never, and no number drawn.
   */
  errorProneToolPrior?: number;
  /**
   * Share of a chain notebook's `True` outputs after which it closes on that quotient (base stage
   * 9), so the base is unsure whether to divide again. Absent (stages 1-8): never.
   */
  chainStopShare?: number;
}

/**
 * A prototype measured 5% tool prior giving 4.7% sampled code calls from the base model (1% gave
 * 0.4%), enough for RL to amplify. Q/A is mostly easy/medium: a tiny model memorises those and
 * fails the hard ones, which is where code pays.
 */
export const DEFAULT_CORPUS_RECIPE: CorpusRecipe = {
  toolPrior: 0.05,
  qaShare: 0.5,
  notebookShare: 0.4,
  proseShare: 0.1,
  tierMix: { easy: 0.4, medium: 0.35, hard: 0.25 },
  kindMix: ARITHMETIC_ONLY,
};

function isWeight(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

/** The recipe in `x` (e.g. read from a checkpoint's meta), or an Error naming the bad field. */
export function validateCorpusRecipe(x: unknown): CorpusRecipe {
  if (typeof x !== 'object' || x === null) throw new Error('corpus recipe must be an object');
  const r = x as Record<string, unknown>;
  if (!isWeight(r.toolPrior) || r.toolPrior > 1) throw new Error(`corpus recipe toolPrior must be in [0, 1], got ${String(r.toolPrior)}`);
  for (const key of ['qaShare', 'notebookShare', 'proseShare'] as const) {
    if (!isWeight(r[key])) throw new Error(`corpus recipe ${key} must be a number >= 0, got ${String(r[key])}`);
  }
  if ((r.qaShare as number) + (r.notebookShare as number) + (r.proseShare as number) <= 0) {
    throw new Error('corpus recipe shares sum to zero');
  }
  const mix = r.tierMix as Record<string, unknown> | undefined;
  if (typeof mix !== 'object' || mix === null) throw new Error('corpus recipe tierMix must be an object');
  for (const tier of TIERS) {
    if (!isWeight(mix[tier])) throw new Error(`corpus recipe tierMix.${tier} must be a number >= 0, got ${String(mix[tier])}`);
  }
  if (TIERS.every((tier) => mix[tier] === 0)) throw new Error('corpus recipe tierMix sums to zero');
  const saved = (r.kindMix ?? ARITHMETIC_ONLY) as Record<string, unknown>;
  if (typeof saved !== 'object' || saved === null) throw new Error('corpus recipe kindMix must be an object');
  const kinds: Record<string, unknown> = withLaterKindShares(saved);
  for (const kind of KINDS) {
    if (!isWeight(kinds[kind])) throw new Error(`corpus recipe kindMix.${kind} must be a number >= 0, got ${String(kinds[kind])}`);
  }
  if (KINDS.every((kind) => kinds[kind] === 0)) throw new Error('corpus recipe kindMix sums to zero');
  for (const key of ['answerLineShare', 'searchToolPrior', 'chainStopShare', 'errorProneToolPrior'] as const) {
    if (r[key] !== undefined && !(isWeight(r[key]) && r[key] <= 1)) throw new Error(`corpus recipe ${key} must be in [0, 1], got ${String(r[key])}`);
  }
  return {
    toolPrior: r.toolPrior,
    qaShare: r.qaShare as number,
    notebookShare: r.notebookShare as number,
    proseShare: r.proseShare as number,
    tierMix: { easy: mix.easy as number, medium: mix.medium as number, hard: mix.hard as number },
    kindMix: Object.fromEntries(KINDS.map((kind) => [kind, kinds[kind] as number])) as Record<Kind, number>,
    ...(r.answerLineShare === undefined ? {} : { answerLineShare: r.answerLineShare as number }),
    ...(r.searchToolPrior === undefined ? {} : { searchToolPrior: r.searchToolPrior as number }),
    ...(r.chainStopShare === undefined ? {} : { chainStopShare: r.chainStopShare as number }),
    ...(r.errorProneToolPrior === undefined ? {} : { errorProneToolPrior: r.errorProneToolPrior as number }),
  };
}

type DocumentKind = 'qa' | 'notebook' | 'prose';
const DOCUMENT_KINDS: readonly DocumentKind[] = ['qa', 'notebook', 'prose'];

/** One document of at most ~200 characters (a chain session of five cells: ~300). */
export function corpusDocument(rng: Random, recipe: CorpusRecipe): string {
  const kind = pickWeighted(rng, { qa: recipe.qaShare, notebook: recipe.notebookShare, prose: recipe.proseShare }, DOCUMENT_KINDS);
  if (kind === 'prose') return proseDocument(rng);
  const p = trainProblem(rng, recipe);
  if (kind === 'notebook') return notebookDocument(rng, p, recipe.answerLineShare, recipe.chainStopShare);
  // An error-prone question's tool answer, if any, copies the question as written: the fix comes
  // from the notebooks' repair sessions, so the repair is something RL keeps or drops.
  if (p.kind === 'errorProne') {
    return recipe.errorProneToolPrior !== undefined && rng.next() < recipe.errorProneToolPrior ? toolQaDocument(rng, p) : qaDocument(rng, p);
  }
  const toolPrior = p.kind === 'search' ? (recipe.searchToolPrior ?? recipe.toolPrior) : recipe.toolPrior;
  return rng.next() < toolPrior ? toolQaDocument(rng, p) : qaDocument(rng, p);
}
