/**
 * The evaluation half of `npm run compare`'s markdown: the train-Nmax by eval-Nmax matrix, each
 * seed's gains, their parts by depth, the gains not paired, and the gains over seeds
 * (src/core/metrics/evalMatrix.ts).
 */
import type { EvalMatrix, OwnNmaxGain } from '../core/metrics/evalMatrix';
import { fixed, table } from './markdownTable';

const seedCell = (seed: number | null) => (seed === null ? '?' : String(seed));
/** A part with its sign; one that rounds to zero is +0.000, never -0.000. */
const signed = (x: number) => {
  const size = Math.abs(x).toFixed(3);
  return `${x < 0 && Number(size) !== 0 ? '-' : '+'}${size}`;
};

/** The depths any of the splits has a part at, ascending: a table's depth columns. */
const depthColumns = (splits: { depth: number }[][]) => [...new Set(splits.flat().map((p) => p.depth))].sort((a, b) => a - b);

/** A cell per depth column: `cell` of the part at that depth, '–' where the split has none. */
function depthCells<P extends { depth: number }>(parts: P[], depths: number[], cell: (part: P) => string): string[] {
  return depths.map((d) => {
    const part = parts.find((p) => p.depth === d);
    return part === undefined ? '–' : cell(part);
  });
}

export function evalSections(matrix: EvalMatrix): string[] {
  const sections = [
    [
      '## pass@1: train Nmax (rows) × eval Nmax (columns)',
      '',
      table(
        ['checkpoint', 'train Nmax', 'seed', ...matrix.evalNmax.map((n) => `eval ${n}`)],
        matrix.rows.map((r) => [r.label, r.trainNmax === null ? '–' : String(r.trainNmax), seedCell(r.seed), ...r.passAtOne.map((p) => fixed(p))]),
      ),
    ].join('\n'),
  ];
  if (matrix.ownNmaxGains.length > 0) {
    sections.push(
      [
        '## pass@1 gain of each trained Nmax at its own Nmax over the next smaller one of the same seed (paired over problems)',
        '',
        "The standard error is the evaluation's: it leaves out how much another seed's training would move the gain.",
        '',
        table(
          ['from Nmax', 'to Nmax', 'seed', 'gain', '± s.e.'],
          matrix.ownNmaxGains.map((g) => [String(g.fromNmax), String(g.toNmax), seedCell(g.seed), fixed(g.difference), fixed(g.standardError)]),
        ),
      ].join('\n'),
    );
  }
  const split = depthSections(matrix.ownNmaxGains);
  if (split !== null) sections.push(split);
  if (matrix.unpairedGains.length > 0) {
    sections.push(
      [
        '## Gains not paired: the two arms were evaluated with other sampling settings',
        '',
        table(
          ['from Nmax', 'to Nmax', 'seed', 'why'],
          matrix.unpairedGains.map((g) => [String(g.fromNmax), String(g.toNmax), seedCell(g.seed), g.reason]),
        ),
      ].join('\n'),
    );
  }
  if (matrix.gainsOverSeeds.length > 0) {
    const depths = depthColumns(matrix.gainsOverSeeds.map((g) => g.byDepth));
    sections.push(
      [
        '## The same gains over seeds (mean, and the standard error over seeds: training and evaluation noise)',
        '',
        ...(depths.length > 0 ? ['Then the mean over seeds of each depth’s part of the gain, ± its standard error over seeds.', ''] : []),
        table(
          ['from Nmax', 'to Nmax', 'seeds', 'mean gain', '± s.e.', ...depths.map((d) => `depth ${d}`)],
          matrix.gainsOverSeeds.map((g) => [
            String(g.fromNmax),
            String(g.toNmax),
            g.seeds.join(','),
            fixed(g.mean),
            fixed(g.standardError),
            ...depthCells(g.byDepth, depths, (p) => `${signed(p.mean)} ± ${p.standardError.toFixed(3)}`),
          ]),
        ),
      ].join('\n'),
    );
  }
  return sections;
}

/** Each gain's parts by depth and the two arms' pass@1 there; null when no gain was split. */
function depthSections(gains: OwnNmaxGain[]): string | null {
  const split = gains.filter((g) => g.byDepth.length > 0);
  if (split.length === 0) return null;
  const depths = depthColumns(split.map((g) => g.byDepth));
  const counts = [...new Set(split.map((g) => g.byDepth.map((p) => `depth ${p.depth}: ${p.problems}`).join(', ')))];
  const head = (...figures: string[]) => ['from Nmax', 'to Nmax', 'seed', ...figures, ...depths.map((d) => `depth ${d}`)];
  return [
    '## Each gain by the depth of its problems (the calls a step-by-step solution takes)',
    '',
    `Problems: ${counts.join('; ')}. A depth's part is its problems' paired differences summed over all the problems, so the parts add up to the gain, ± the evaluation's standard error. A problem no deeper than the smaller Nmax needs no call that budget lacks (bar repairs of failed calls): its part is mostly the two trainings differing, not the budget.`,
    '',
    table(
      head('gain'),
      split.map((g) => [String(g.fromNmax), String(g.toNmax), seedCell(g.seed), fixed(g.difference), ...depthCells(g.byDepth, depths, (p) => `${signed(p.part)} ± ${p.standardError.toFixed(3)}`)]),
    ),
    '',
    'pass@1 over the problems of each depth: the arm trained at the smaller Nmax -> the larger, each at its own Nmax.',
    '',
    table(
      head(),
      split.map((g) => [String(g.fromNmax), String(g.toNmax), seedCell(g.seed), ...depthCells(g.byDepth, depths, (p) => `${p.fromPassAtOne.toFixed(2)} -> ${p.toPassAtOne.toFixed(2)}`)]),
    ),
  ].join('\n');
}
