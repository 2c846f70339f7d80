/**
 * The Nmax sweep's evaluations side by side: the train-Nmax by eval-Nmax matrix of `npm run eval`
 * reports (or of the lab's evaluations), and the gain of each trained Nmax at its own Nmax over the
 * next smaller one.
 *
 * A gain pairs two arms of one seed problem by problem (pairedDifference.ts). Its standard error is
 * the evaluation's alone: it sees which answers the sampling happened to draw, not which model the
 * training happened to make. Arms of two seeds differ by their training too, so they are never
 * paired; where several seeds give the same gain, its mean over them comes with the standard error
 * over seeds, which does count the training's noise (with the ablation preset the Nmax 8 arm's gain
 * over the Nmax 4 arm ranges from -0.004 to +0.018 over five seeds, each with a paired error of
 * 0.005-0.009: docs/tasks.md). Two arms evaluated with other sampling settings are not paired
 * either: the matrix says which and why.
 *
 * Each gain is split by the depth of its problems too (gainByDepth.ts), where both reports list
 * the same depths.
 */
import { gainByDepth, type DepthPart } from './gainByDepth';
import { meanOrNull, standardErrorOfMean } from './means';
import { pairedDifference } from './pairedDifference';

/** What the matrix needs of an `npm run eval` report (src/cli/eval.ts). */
export interface EvalReportBlocks extends Partial<Record<SamplingSetting, number>> {
  /** Each problem's depth in perProblem's order: absent (or empty) in reports from before it; then no gain is split by depth. */
  problemDepths?: number[];
  /** perProblem: absent in reports written before it existed; then no gain is paired. */
  blocks: { nmax: number; 'pass@1': number; perProblem?: number[] }[];
}

/**
 * How a report sampled its answers, beyond the budget: two arms sampled otherwise differ by more than
 * their Nmax, so their gain is not paired. (k and the draws' seed may differ: each report's pass@1
 * estimates the same quantity.)
 */
const SAMPLING_SETTINGS = ['temperature', 'topP', 'maxResponseTokens', 'maxOutputChars'] as const;
type SamplingSetting = (typeof SAMPLING_SETTINGS)[number];

export interface EvalMatrixInput {
  /** Names the row: the checkpoint or the file. */
  label: string;
  /** Nmax the checkpoint was trained with (its run config), null when unknown (a base or SFT model). */
  trainNmax: number | null;
  /** The seed it was trained with (its run config), null when unknown; reports of unknown seed pair among themselves. */
  seed: number | null;
  report: EvalReportBlocks;
}

/** One seed's gain: its arm trained at `toNmax` scored at toNmax, minus its arm trained at `fromNmax` scored at fromNmax. */
export interface OwnNmaxGain {
  fromNmax: number;
  toNmax: number;
  seed: number | null;
  difference: number;
  /** Paired over the problems both arms scored: the evaluation's noise only. */
  standardError: number;
  /** Its parts by depth, ascending; empty when a report does not give its problems' depths. */
  byDepth: DepthPart[];
}

/** A gain measured at two seeds or more. */
export interface GainOverSeeds {
  fromNmax: number;
  toNmax: number;
  seeds: number[];
  /** The mean of the seeds' gains, with the standard error of that mean over seeds (training and evaluation noise). */
  mean: number;
  standardError: number;
  /** The mean of each depth's part over the seeds, with its standard error over them; empty unless every seed split its gain by the same depths. */
  byDepth: { depth: number; mean: number; standardError: number }[];
}

/** Two arms of one seed whose gain is not paired, and why. */
export interface UnpairedGain {
  fromNmax: number;
  toNmax: number;
  seed: number | null;
  reason: string;
}

export interface EvalMatrix {
  /** Column headers: every inference Nmax in any report, ascending. */
  evalNmax: number[];
  /** One row per report, by trained Nmax (unknown last), then seed; pass@1 per column (null where not evaluated). */
  rows: { label: string; trainNmax: number | null; seed: number | null; passAtOne: (number | null)[] }[];
  /** By fromNmax, then seed (unknown last). */
  ownNmaxGains: OwnNmaxGain[];
  /** Neighbouring arms sampled otherwise (SAMPLING_SETTINGS): no gain. */
  unpairedGains: UnpairedGain[];
  gainsOverSeeds: GainOverSeeds[];
}

/** Ascending, null last. */
const byValue = (a: number | null, b: number | null) => (a ?? Infinity) - (b ?? Infinity);

export function evalMatrix(inputs: EvalMatrixInput[]): EvalMatrix {
  const evalNmax = [...new Set(inputs.flatMap((i) => i.report.blocks.map((b) => b.nmax)))].sort((a, b) => a - b);
  const rows = inputs
    .map((input) => ({
      label: input.label,
      trainNmax: input.trainNmax,
      seed: input.seed,
      passAtOne: evalNmax.map((n) => input.report.blocks.find((b) => b.nmax === n)?.['pass@1'] ?? null),
    }))
    .sort((a, b) => byValue(a.trainNmax, b.trainNmax) || byValue(a.seed, b.seed));
  const seeds = [...new Set(inputs.map((input) => input.seed))];
  const bySeed = seeds.map((seed) => seedGains(inputs.filter((input) => input.seed === seed), seed));
  const order = (a: { fromNmax: number; seed: number | null }, b: { fromNmax: number; seed: number | null }) => a.fromNmax - b.fromNmax || byValue(a.seed, b.seed);
  const gains = bySeed.flatMap((g) => g.paired).sort(order);
  return { evalNmax, rows, ownNmaxGains: gains, unpairedGains: bySeed.flatMap((g) => g.unpaired).sort(order), gainsOverSeeds: gainsOverSeeds(gains) };
}

/** An arm scored at its own Nmax, problem by problem. */
interface ScoredArm {
  nmax: number;
  report: EvalReportBlocks;
  block: { nmax: number; 'pass@1': number; perProblem: number[] };
}

/** One seed's arms in order of trained Nmax, each against the one before it. */
function seedGains(inputs: EvalMatrixInput[], seed: number | null): { paired: OwnNmaxGain[]; unpaired: UnpairedGain[] } {
  const own = inputs
    .map((input) => ({ nmax: input.trainNmax, report: input.report, block: input.report.blocks.find((b) => b.nmax === input.trainNmax) }))
    .filter((arm): arm is ScoredArm => arm.nmax !== null && arm.block?.perProblem !== undefined)
    .sort((a, b) => a.nmax - b.nmax);
  const paired: OwnNmaxGain[] = [];
  const unpaired: UnpairedGain[] = [];
  own.slice(1).forEach((arm, i) => {
    const previous = own[i];
    if (previous.nmax === arm.nmax || previous.block.perProblem.length !== arm.block.perProblem.length) return;
    const differing = SAMPLING_SETTINGS.filter((key) => previous.report[key] !== undefined && arm.report[key] !== undefined && previous.report[key] !== arm.report[key]);
    if (differing.length > 0) {
      const reason = `sampled otherwise: ${differing.map((key) => `${key} ${previous.report[key]} vs ${arm.report[key]}`).join(', ')}`;
      unpaired.push({ fromNmax: previous.nmax, toNmax: arm.nmax, seed, reason });
    } else {
      const gain = pairedDifference(previous.block.perProblem, arm.block.perProblem);
      const byDepth = gainByDepth(previous.block.perProblem, arm.block.perProblem, previous.report.problemDepths ?? null, arm.report.problemDepths ?? null);
      paired.push({ fromNmax: previous.nmax, toNmax: arm.nmax, seed, ...gain, byDepth });
    }
  });
  return { paired, unpaired };
}

function gainsOverSeeds(gains: OwnNmaxGain[]): GainOverSeeds[] {
  const pairs = [...new Set(gains.map((g) => `${g.fromNmax} ${g.toNmax}`))].map((key) => key.split(' ').map(Number));
  return pairs.flatMap(([fromNmax, toNmax]) => {
    const seeded = gains.filter((g): g is OwnNmaxGain & { seed: number } => g.fromNmax === fromNmax && g.toNmax === toNmax && g.seed !== null);
    if (seeded.length < 2) return [];
    const differences = seeded.map((g) => g.difference);
    return [{ fromNmax, toNmax, seeds: seeded.map((g) => g.seed), mean: meanOrNull(differences)!, standardError: standardErrorOfMean(differences), byDepth: depthPartsOverSeeds(seeded) }];
  });
}

function depthPartsOverSeeds(gains: OwnNmaxGain[]): GainOverSeeds['byDepth'] {
  const depths = gains[0].byDepth.map((p) => p.depth);
  const alike = gains.every((g) => g.byDepth.length === depths.length && g.byDepth.every((p, i) => p.depth === depths[i]));
  if (depths.length === 0 || !alike) return [];
  return depths.map((depth, i) => {
    const parts = gains.map((g) => g.byDepth[i].part);
    return { depth, mean: meanOrNull(parts)!, standardError: standardErrorOfMean(parts) };
  });
}
