/**
 * Runs that trained identically: in a sweep, an Nmax no answer ever reaches changes nothing, so
 * the arm at Nmax 8 can repeat the arm at Nmax 4 step for step and its line hides the other.
 * The figures compared are the ones read from the answers (counts and shares): the same answers
 * give the same figures on any backend, where the loss figures could differ in their last bits.
 */
import type { LabRun } from '../state/labRun';
import type { MetricColumns } from '../state/runColumns';

const ANSWER_FIGURES = ['accuracy', 'testAccuracy', 'codeCallFrequency', 'callsPerResponse', 'responseLength', 'policyTokens'] as const satisfies readonly (keyof MetricColumns)[];

function sameColumn(a: readonly (number | null)[], b: readonly (number | null)[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Both runs recorded the same steps, with the same answer figures at every one (and at least one step). */
export function trainedIdentically(a: LabRun, b: LabRun): boolean {
  if (a.columns.step.length === 0 || !sameColumn(a.columns.step, b.columns.step)) return false;
  return ANSWER_FIGURES.every((figure) => sameColumn(a.columns[figure], b.columns[figure]));
}

/**
 * The positions (in `runs`) of each set of two or more identical runs, each set in the runs' order
 * and the sets by their first member; a run in no such set is in none.
 */
export function identicalRunGroups(runs: readonly LabRun[]): number[][] {
  const groups: number[][] = [];
  runs.forEach((run, i) => {
    const group = groups.find((g) => trainedIdentically(runs[g[0]], run));
    if (group) group.push(i);
    else groups.push([i]);
  });
  return groups.filter((g) => g.length > 1);
}
