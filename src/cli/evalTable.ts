/** The table `npm run eval` writes on stderr: one row per inference Nmax, then the figures by depth. */
import type { EvalBlock } from '../core/eval/evalReport';
import { MAX_DEPTH } from '../core/tasks/problem';

const f = (x: number | null, digits = 3) => (x === null ? '--' : x.toFixed(digits));

export function evalTable(blocks: EvalBlock[]): string {
  const head = 'nmax  pass@1  easy   medium hard   codeRatio calls/resp codePass single selfCorr selfCorrShare';
  const rows = blocks.map(
    (b) =>
      `${String(b.nmax).padEnd(5)} ${f(b['pass@1'])}   ${f(b.byTier.easy)}  ${f(b.byTier.medium)}  ${f(b.byTier.hard)}  ` +
      `${f(b.codeRatio).padEnd(9)} ${f(b.callsPerResponse).padEnd(10)} ${f(b.codePassRate).padEnd(8)} ${f(b.singleCallShare).padEnd(6)} ` +
      `${String(b.selfCorrections).padEnd(8)} ${f(b.selfCorrectionShare)}`,
  );
  return [head, ...rows, ...depthRows(blocks)].join('\n');
}

/** pass@1, calls per answer and single-call share at each depth a block measured (none: no lines). */
function depthRows(blocks: EvalBlock[]): string[] {
  const depths = [...Array(MAX_DEPTH).keys()].filter((d) => blocks.some((b) => b.callsPerResponseByDepth[d] !== null));
  if (depths.length === 0) return [];
  const cell = (text: string) => text.padEnd(8);
  const head = ['nmax ', ...depths.map((d) => cell(`pass d${d + 1}`)), ...depths.map((d) => cell(`calls d${d + 1}`)), ...depths.map((d) => cell(`single d${d + 1}`))].join(' ');
  const rows = blocks.map((b) =>
    [
      String(b.nmax).padEnd(5),
      ...depths.map((d) => cell(f(b.byDepth[d], 2))),
      ...depths.map((d) => cell(f(b.callsPerResponseByDepth[d], 2))),
      ...depths.map((d) => cell(f(b.singleCallShareByDepth[d], 2))),
    ].join(' '),
  );
  return ['by depth (the calls a step-by-step solution takes):', head.trimEnd(), ...rows.map((r) => r.trimEnd())];
}
