/**
 * The sweep's conclusion in one line, computed from its arms' held-out figures: the gain from each
 * Nmax arm to the next, with its standard error, and whether it is beyond noise; with pass@1
 * reports that list their problems' depths, the depths whose part of a gain is beyond noise. A
 * class reads which extra calls paid, and on which problems, not four curves that wobble.
 */
import { gainByDepth, type DepthPart } from '../../core/metrics/gainByDepth';
import { pairedDifference } from '../../core/metrics/pairedDifference';
import { testSet } from '../../core/tasks/splits';
import type { LabRun } from '../state/labRun';
import { identicalRunGroups } from './identicalRuns';

/**
 * A gain is beyond noise past this many standard errors (about 1 in 20 by chance at 2). The errors
 * are the evaluation's: the arms are one seed's, so how far another seed's training would move a
 * gain is not in them (with the ablation preset, a standard deviation of 0.009 over five seeds for
 * the gain 4 -> 8, more than its paired error: docs/tasks.md), and the line says so.
 */
export const NOISE_STANDARD_ERRORS = 2;

export interface ArmFigure {
  nmax: number;
  /** Held-out accuracy at the arm's own Nmax. */
  accuracy: number;
  /** Problems scored. */
  problems: number;
  /** Each problem's score, in the set's order, where the arm has them: what pairs two arms. */
  perProblem: readonly number[] | null;
  /** Each problem's depth, in the same order, where the arm's report lists them: what splits a gain by depth. */
  problemDepths: readonly number[] | null;
  /** Arms with the same group trained identical runs (identicalRuns.ts); null: none. */
  identicalGroup: number | null;
}

export interface SweepFigures {
  /** What `accuracy` is: greedy accuracy on the test set, or the evaluation panel's pass@1. */
  figure: 'greedy accuracy' | 'pass@1';
  arms: ArmFigure[];
}

export interface ArmGain {
  fromNmax: number;
  toNmax: number;
  difference: number;
  standardError: number;
  verdict: 'beyond noise' | 'within noise' | 'identical runs';
  /** Its parts by depth (gainByDepth.ts); empty unless both arms are paired and list the same depths. */
  byDepth: DepthPart[];
}

/**
 * The figure of each evaluated run at its own Nmax: pass@1 with per-problem scores when every
 * evaluated run has one there (the evaluation panel), else the sweep's greedy accuracy. One figure
 * for all arms, so no gain compares pass@1 with greedy accuracy.
 */
export function sweepFigures(runs: readonly LabRun[]): SweepFigures {
  const groups = identicalRunGroups(runs);
  const groupOf = (i: number) => {
    const g = groups.findIndex((group) => group.includes(i));
    return g === -1 ? null : g;
  };
  const passAtOne = runs.map((run) => {
    const block = run.passAtOne?.report.blocks.find((b) => b.nmax === run.config.nmax);
    if (!block || !run.passAtOne) return null;
    const { problems, problemDepths } = run.passAtOne.report;
    return { accuracy: block['pass@1'], problems, perProblem: block.perProblem, problemDepths: problemDepths.length > 0 ? problemDepths : null };
  });
  const greedy = runs.map((run) => {
    const accuracy = run.evaluation?.[run.config.nmax];
    return accuracy === undefined ? null : { accuracy, problems: testSet().length, perProblem: null, problemDepths: null };
  });
  const evaluated = runs.map((_, i) => passAtOne[i] !== null || greedy[i] !== null);
  const usePassAtOne = evaluated.some(Boolean) && evaluated.every((e, i) => !e || passAtOne[i] !== null);
  const chosen = usePassAtOne ? passAtOne : greedy;
  return {
    figure: usePassAtOne ? 'pass@1' : 'greedy accuracy',
    arms: runs.flatMap((run, i) => {
      const figure = chosen[i];
      return figure ? [{ nmax: run.config.nmax, ...figure, identicalGroup: groupOf(i) }] : [];
    }),
  };
}

/**
 * b's accuracy minus a's with its standard error: paired over the problems when both arms have
 * per-problem scores of the same problems; else as two independent sets of 0/1 scores (the sample
 * standard deviation over sqrt(n), sqrt(p(1-p)/(n-1)), as standardErrorOfMean gives for each),
 * which is larger than the paired one: arms scored on the same problems mostly agree.
 */
function gainOf(a: ArmFigure, b: ArmFigure): { difference: number; standardError: number } {
  if (a.perProblem && b.perProblem && a.perProblem.length === b.perProblem.length && a.perProblem.length > 0) return pairedDifference(a.perProblem, b.perProblem);
  const variance = (arm: ArmFigure) => (arm.problems > 1 ? (arm.accuracy * (1 - arm.accuracy)) / (arm.problems - 1) : 0);
  return { difference: b.accuracy - a.accuracy, standardError: Math.sqrt(variance(a) + variance(b)) };
}

/** The gain from each arm to the next by Nmax. */
export function armGains(arms: readonly ArmFigure[]): ArmGain[] {
  const byNmax = [...arms].sort((a, b) => a.nmax - b.nmax);
  return byNmax.slice(1).map((arm, i) => {
    const previous = byNmax[i];
    const { difference, standardError } = gainOf(previous, arm);
    const identical = arm.identicalGroup !== null && arm.identicalGroup === previous.identicalGroup;
    const verdict = identical ? 'identical runs' : Math.abs(difference) > NOISE_STANDARD_ERRORS * standardError ? 'beyond noise' : 'within noise';
    const byDepth = previous.perProblem && arm.perProblem ? gainByDepth(previous.perProblem, arm.perProblem, previous.problemDepths, arm.problemDepths) : [];
    return { fromNmax: previous.nmax, toNmax: arm.nmax, difference, standardError, verdict, byDepth };
  });
}

/** The parts of a gain beyond noise that show at two decimals, e.g. "depth 3 +0.04, depth 4 +0.02"; null when none. */
function partsBeyondNoise(gain: ArmGain): string | null {
  const shown = gain.byDepth.filter((p) => Math.abs(p.part) >= 0.005 && Math.abs(p.part) > NOISE_STANDARD_ERRORS * p.standardError);
  return shown.length === 0 ? null : shown.map((p) => `depth ${p.depth} ${signed(p.part)}`).join(', ');
}

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/** The line under the sweep's chart, e.g. "... Nmax 0 → 1: +0.44 ± 0.04 (beyond noise); 1 → 2: +0.03 ± 0.05 (within noise)." */
export function conclusionLine({ figure, arms }: SweepFigures): string {
  if (arms.length < 2) return 'The conclusion comes when two runs have been evaluated: which extra calls paid, beyond noise.';
  const problems = [...new Set(arms.map((a) => a.problems))].join('/');
  const paired = arms.every((a) => a.perProblem !== null) ? ', paired' : '';
  const armGainList = armGains(arms);
  const gains = armGainList.map((g, i) => {
    const pair = `${i === 0 ? 'Nmax ' : ''}${g.fromNmax} → ${g.toNmax}`;
    if (g.verdict === 'identical runs') return `${pair}: ${signed(g.difference)} (identical runs)`;
    const parts = partsBeyondNoise(g);
    return `${pair}: ${signed(g.difference)} ± ${g.standardError.toFixed(2)} (${g.verdict}${parts === null ? '' : `; ${parts}`})`;
  });
  const depthNote = armGainList.some((g) => g.byDepth.length > 0) ? "; depth d = the part of the problems whose step-by-step solution takes d calls, where beyond noise" : '';
  return `Held-out ${figure} at each run's own Nmax (${problems} problems${paired}; beyond noise = more than ${NOISE_STANDARD_ERRORS} standard errors, the evaluation's: another seed's training moves a gain too${depthNote}): ${gains.join('; ')}.`;
}

/** The words for identical arms, e.g. "Nmax 4 and 8 trained identical runs …"; null when none did. */
export function identicalArmsNote(nmax: readonly number[], groups: readonly number[][]): string | null {
  if (groups.length === 0) return null;
  const sets = groups.map((g) => {
    const values = g.map((i) => String(nmax[i]));
    return `Nmax ${values.slice(0, -1).join(', ')} and ${values[values.length - 1]}`;
  });
  // Arms at different Nmax can only match where no answer reached the larger budget.
  const why = groups.every((g) => new Set(g.map((i) => nmax[i])).size === g.length) ? ' (no answer used the extra calls)' : '';
  const dashed = groups.length === 1 && groups[0].length === 2 ? 'the later one is dashed over it' : 'the later ones are dashed over the first';
  return `${sets.join('; ')} trained identical runs: the same answers at every step${why}, so their lines coincide; ${dashed}.`;
}
