import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand, InputError, parseCompareArgs, readRunDir, type CompareArgs } from '../src/cli/compare';
import { UsageError } from '../src/cli/cliArgs';
import { PRESETS } from '../src/core/experiment';
import { runExport } from '../src/core/archive/runExport';
import type { EvalReport } from '../src/core/eval/evalReport';
import { emptyStepMetrics } from '../src/core/metrics/stepMetrics';

const TSX = join('node_modules', '.bin', 'tsx');
let root: string;
let zero: string;
let tool: string;

/** A metrics.jsonl line as npm run train writes it, with only the figures these tests read. */
function line(step: number, figures: Record<string, number | null | (number | null)[]>): string {
  return JSON.stringify({ step, accuracy: null, testAccuracy: null, codeCallFrequency: null, ...figures });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'compare-cli-'));
  // Nmax 2, config in summary.json, evaluated: code use 0.25, 0.5, 0.75 (final 0.5), tests 0.1 then 0.5;
  // self-correction share 0, 0, 0.6 (start and final 0.2); depths 1 and 2 measured at step 3.
  tool = join(root, 'tool-n2');
  mkdirSync(join(tool, 'checkpoint'), { recursive: true });
  writeFileSync(
    join(tool, 'metrics.jsonl'),
    [
      line(0, { testAccuracy: 0.1 }),
      line(1, { accuracy: 0.2, codeCallFrequency: 0.25, selfCorrectionShare: 0 }),
      line(2, { accuracy: 0.4, codeCallFrequency: 0.5, selfCorrectionShare: 0 }),
      line(3, {
        accuracy: 0.6, codeCallFrequency: 0.75, testAccuracy: 0.5, selfCorrectionShare: 0.6,
        singleCallShareByDepth: [1, 0.5, null, null, null], callsPerResponseByDepth: [1, 2, null, null, null],
      }),
    ].join('\n') + '\n',
  );
  writeFileSync(join(tool, 'summary.json'), JSON.stringify({ config: { ...PRESETS.classroom, seed: 1, nmax: 2 }, base: 'public/models/base' }));
  writeFileSync(join(tool, 'checkpoint', 'model.json'), JSON.stringify({ meta: { kind: 'rl', config: { nmax: 2, seed: 1 } } }));
  writeFileSync(
    join(tool, 'eval.json'),
    JSON.stringify({ checkpoint: join(tool, 'checkpoint'), blocks: [{ nmax: 0, 'pass@1': 0.25 }, { nmax: 2, 'pass@1': 0.625, perProblem: [1, 0.5, 0.5, 0.5] }] }),
  );
  // Nmax 0, still without summary.json: the config comes from the checkpoint's meta; an older line lacks the code-use figures.
  zero = join(root, 'no-tool-n0');
  mkdirSync(join(zero, 'checkpoint'), { recursive: true });
  writeFileSync(join(zero, 'metrics.jsonl'), [line(0, { testAccuracy: 0.1 }), line(1, { accuracy: 0.3, codeCallFrequency: 0 }), JSON.stringify({ step: 2, accuracy: 0.3 })].join('\n'));
  writeFileSync(
    join(zero, 'checkpoint', 'model.json'),
    JSON.stringify({ meta: { kind: 'rl', config: { ...PRESETS.classroom, seed: 1, nmax: 0 }, base: { path: 'public/models/base' } } }),
  );
  writeFileSync(join(zero, 'eval.json'), JSON.stringify({ checkpoint: join(zero, 'checkpoint'), blocks: [{ nmax: 0, 'pass@1': 0.25, perProblem: [0, 0.5, 0.5, 0] }] }));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function args(inputs: string[], extra: Partial<CompareArgs> = {}): CompareArgs {
  return { inputs, evalFiles: [], reference: null, target: null, json: false, ...extra };
}

describe('npm run compare', () => {
  it('reads a run directory: metrics (missing figures are null), config and start from summary.json or the checkpoint', () => {
    const run = readRunDir(`${zero}/`);
    expect(run.name).toBe(zero);
    expect(run.config.nmax).toBe(0);
    expect(run.start).toBe('public/models/base');
    expect(run.metrics.map((m) => m.step)).toEqual([0, 1, 2]);
    expect(run.metrics[2].codeCallFrequency).toBeNull();
    expect(run.metrics[2].singleCallShare).toBeNull();
    expect(readRunDir(tool).config.seed).toBe(1);
  });

  it('prints the run and arm tables, the differing field and the matrix from the run dir eval.json', () => {
    const text = compareCommand(args([tool, zero]));
    expect(text).toContain(`Target code-call frequency: 0.500 (the final code-call frequency of ${tool}).`);
    expect(text).toContain('Arms differ in: nmax: 2 vs 0.');
    // tool-n2 reaches 0.5 at step 2; its tests: final 0.5, best 0.5; accuracy first/last 10 both 0.4; rho 1.
    expect(text).toContain(`| ${tool} | nmax 2 | 1 | 3 | 0.500 | 2 | 0.500 | 0.500 | 0.400 | 0.400 | 1.000 | – | – | – | 0.200 | 0.200 |`);
    // no-tool: steps 1 and 2, code use 0 (step 2 has none), accuracy constant so no rho; test only at step 0.
    expect(text).toContain(`| ${zero} | nmax 0 | 1 | 2 | 0.000 | – | 0.100 | 0.100 | 0.300 | 0.300 | – | – | – | – | – | – |`);
    expect(text).toContain('| self-correction share (first 3) | self-correction share (final) |');
    expect(text).toContain("Self-correction share (first 3) = mean of the first 3 measured steps, the start policy's (step 1 is sampled before any update).");
    // By depth: only the depths some run measured; the older run has none.
    expect(text).toContain('| run | calls, d 1 | calls, d 2 | single-call share, d 1 | single-call share, d 2 |');
    expect(text).toContain(`| ${tool} | 1.00 | 2.00 | 1.000 | 0.500 |`);
    expect(text).toContain(`| ${zero} | – | – | – | – |`);
    expect(text).toContain('| nmax 0 | 1 | 1 | 2 | 0.000 | – (0/1 reached) |');
    expect(text).toContain('| checkpoint | train Nmax | seed | eval 0 | eval 2 |');
    expect(text).toContain(`| ${join(tool, 'checkpoint')} | 2 | 1 | 0.250 | 0.625 |`);
    // Own-Nmax gain 0 -> 2, paired: differences 1, 0, 0, 0.5, mean 0.375, s.e. sqrt(0.6875 / 3 / 4).
    expect(text).toContain('| from Nmax | to Nmax | seed | gain | ± s.e. |');
    expect(text).toContain('| 0 | 2 | 1 | 0.375 | 0.239 |');
  });

  it('--reference adds its run first and sets the target; --json is one object', () => {
    const report = JSON.parse(compareCommand(args([tool], { reference: zero, json: true })));
    expect(report.reference).toBe(zero);
    expect(report.target).toBe(0);
    expect(report.runs.map((r: { name: string; reachesTargetAt: number | null }) => [r.name, r.reachesTargetAt])).toEqual([
      [zero, 1],
      [tool, 1],
    ]);
    expect(report.differences).toEqual([{ field: 'nmax', values: ['0', '2'] }]);
    expect(report.evalMatrix.rows.map((r: { trainNmax: number; passAtOne: (number | null)[] }) => [r.trainNmax, r.passAtOne])).toEqual([
      [0, [0.25, null]],
      [2, [0.25, 0.625]],
    ]);
    expect(report.evalMatrix.ownNmaxGains).toHaveLength(1);
    expect(report.finalWindow).toBe(10);
  });

  /**
   * An npm run eval report of a sweep's arm in the folder `sweep`, scored at its own Nmax, with `fields`
   * beside the blocks; its checkpoint's meta.config holds the run's nmax and seed, as npm run train writes it.
   */
  function armReport(sweep: string, nmax: number, seed: number, perProblem: number[], fields: Record<string, unknown> = {}): string {
    const checkpoint = join(root, `${sweep}-s${seed}`, `nmax-${nmax}`, 'checkpoint');
    mkdirSync(checkpoint, { recursive: true });
    writeFileSync(join(checkpoint, 'model.json'), JSON.stringify({ meta: { kind: 'rl', config: { ...PRESETS.ablation, seed, nmax } } }));
    const file = join(root, `${sweep}-eval-s${seed}-n${nmax}.json`);
    const passAtOne = perProblem.reduce((a, b) => a + b, 0) / perProblem.length;
    writeFileSync(file, JSON.stringify({ checkpoint, ...fields, blocks: [{ nmax, 'pass@1': passAtOne, perProblem }] }));
    return file;
  }

  it("--eval reports of two seeds: each seed's gain from its own arms, and their mean with the standard error over seeds", () => {
    const report = (nmax: number, seed: number, perProblem: number[]) => armReport('sweep', nmax, seed, perProblem);
    const evalFiles = [report(4, 1, [1, 0, 0, 0]), report(4, 2, [0, 0, 0, 0]), report(8, 1, [1, 1, 0, 0]), report(8, 2, [1, 1, 1, 0])];
    const text = compareCommand(args([], { evalFiles }));
    // Seed 1: differences 0, 1, 0, 0 (mean 0.25, s.e. sqrt(0.25 / 4)); seed 2: 1, 1, 1, 0 (0.75, the same s.e.).
    expect(text).toContain('| 4 | 8 | 1 | 0.250 | 0.250 |');
    expect(text).toContain('| 4 | 8 | 2 | 0.750 | 0.250 |');
    // Over seeds: mean 0.5; the two gains are 0.25 either side of it, s.e. sqrt(0.125 / 2) = 0.25.
    expect(text).toContain('| from Nmax | to Nmax | seeds | mean gain | ± s.e. |');
    expect(text).toContain('| 4 | 8 | 1,2 | 0.500 | 0.250 |');
    // Reports without their problems' depths (from before them): no gain is split.
    expect(text).not.toContain('## Each gain by the depth of its problems');
  });

  it("--eval reports that give their problems' depths: each gain split by depth, and the parts over seeds", () => {
    const report = (nmax: number, seed: number, perProblem: number[], problemDepths: unknown = [1, 1, 1, 5]) => armReport('depths', nmax, seed, perProblem, { problemDepths });
    const evalFiles = [report(4, 1, [1, 1, 1, 0]), report(8, 1, [1, 1, 1, 1]), report(4, 2, [1, 1, 1, 0]), report(8, 2, [0, 1, 1, 1])];
    const text = compareCommand(args([], { evalFiles }));
    expect(text).toContain('Problems: depth 1: 3, depth 5: 1.');
    expect(text).toContain('| from Nmax | to Nmax | seed | gain | depth 1 | depth 5 |');
    // Seed 1 gains only at depth 5. Seed 2 loses one depth-1 problem as it gains the depth-5 one: depth 1's
    // differences -1, 0, 0 have s.e. 1/3, times their share 3/4 = 0.25.
    expect(text).toContain('| 4 | 8 | 1 | 0.250 | +0.000 ± 0.000 | +0.250 ± 0.000 |');
    expect(text).toContain('| 4 | 8 | 2 | 0.000 | -0.250 ± 0.250 | +0.250 ± 0.000 |');
    expect(text).toContain('| 4 | 8 | 2 | 1.00 -> 0.67 | 0.00 -> 1.00 |');
    // Over seeds: depth 1's parts 0 and -0.25 (mean -0.125, s.e. 0.125), depth 5's 0.25 twice.
    expect(text).toContain('| from Nmax | to Nmax | seeds | mean gain | ± s.e. | depth 1 | depth 5 |');
    expect(text).toContain('| 4 | 8 | 1,2 | 0.125 | 0.125 | -0.125 ± 0.125 | +0.250 ± 0.000 |');

    expect(() => compareCommand(args([], { evalFiles: [report(4, 3, [1, 0], ['1', 2])] }))).toThrow(/problemDepths must list a depth from 1 to 5 for each problem/);
  });

  it('--eval reports of one seed sampled at other temperatures: no gain, and a line that says why', () => {
    // The fields npm run eval writes beside the blocks (src/core/eval/evalReport.ts).
    const report = (nmax: number, temperature: number) =>
      armReport('sampled', nmax, 3, [1, 0], { k: 4, temperature, topP: 0.7, seed: 0, maxResponseTokens: 432, maxOutputChars: 64 });
    const text = compareCommand(args([], { evalFiles: [report(4, 1), report(8, 0)] }));
    expect(text).not.toContain('| from Nmax | to Nmax | seed | gain | ± s.e. |');
    expect(text).toContain('## Gains not paired: the two arms were evaluated with other sampling settings');
    expect(text).toContain('| 4 | 8 | 3 | sampled otherwise: temperature 1 vs 0 |');
  });

  it("reads runs exported from the lab: their rows, and their pass@1 evaluations join the matrix with the export's Nmax and seed", () => {
    /** A lab run's export as the lab's download writes it (runExport), pass@1 on four problems of depths 1, 1, 1, 5. */
    const exported = (nmax: number, perProblem: number[] | null) => {
      const report = {
        checkpoint: `arm ${nmax} @ step 2`, format: 'zerotir', problems: 4, k: 4, temperature: 1, topP: 0.7, seed: 0, maxResponseTokens: 432, maxOutputChars: 64,
        wallSeconds: 1, problemDepths: [1, 1, 1, 5], blocks: perProblem === null ? [] : [{ nmax, 'pass@1': perProblem.reduce((a, b) => a + b, 0) / 4, perProblem }],
      } as unknown as EvalReport;
      const file = join(root, `export-n${nmax}.json`);
      const run = runExport({
        name: `arm ${nmax}`, preset: 'ablation', config: { ...PRESETS.ablation, nmax, seed: 7 },
        metrics: [{ ...emptyStepMetrics(1), accuracy: 0.5 }, { ...emptyStepMetrics(2), accuracy: 0.75 }], samples: [], evaluation: null,
        passAtOne: perProblem === null ? null : { step: 2, evaluatedAt: 1, report },
      });
      writeFileSync(file, JSON.stringify(run));
      return file;
    };
    const text = compareCommand(args([exported(4, [1, 1, 1, 0]), exported(8, [1, 0, 1, 1])]));
    expect(text).toContain('Arms differ in: nmax: 4 vs 8.');
    expect(text).toContain('| arm 4 @ step 2 | 4 | 7 | 0.750 | – |');
    expect(text).toContain('| 4 | 8 | 7 | 0.000 | 0.408 |');
    expect(text).toContain('| 4 | 8 | 7 | 0.000 | -0.250 ± 0.250 | +0.250 ± 0.000 |');
    // An export without an evaluation is a run and no row of the matrix.
    const unevaluated = compareCommand(args([exported(2, null)]));
    expect(unevaluated).toContain('| arm 2 | same config | 7 | 2 |');
    expect(unevaluated).not.toContain('## pass@1: train Nmax');
    // A mangled evaluation is refused by name, not a crash.
    const mangled = join(root, 'export-mangled.json');
    writeFileSync(mangled, JSON.stringify({ ...JSON.parse(readFileSync(exported(2, null), 'utf8')), passAtOne: { step: 2, report: null } }));
    expect(() => compareCommand(args([mangled]))).toThrow(`${mangled} (its pass@1 evaluation) is not an npm run eval report (each block needs nmax and pass@1)`);
  });

  it('refuses a missing directory, a directory without metrics and a bad --target', () => {
    expect(() => compareCommand(args([join(root, 'nope')]))).toThrow(InputError);
    expect(() => compareCommand(args([root]))).toThrow(/has no metrics.jsonl/);
    expect(() => parseCompareArgs(['--target', '2', tool])).toThrow(UsageError);
    expect(() => parseCompareArgs([])).toThrow(/give at least one run directory/);
    expect(() => compareCommand(args([tool], { evalFiles: [join(tool, 'summary.json')] }))).toThrow(/neither a run exported from the lab nor an npm run eval report/);
  });

  it('as a process: exit 2 with the usage on a bad flag, exit 2 naming a missing directory', () => {
    const bad = spawnSync(TSX, ['src/cli/compare.ts', '--frobnicate', tool], { encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/compare: Unknown option '--frobnicate'/);
    expect(bad.stderr).toMatch(/usage: npm run compare/);
    const missing = spawnSync(TSX, ['src/cli/compare.ts', join(root, 'missing-run')], { encoding: 'utf8', timeout: 60_000 });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`compare: no run directory or file at ${join(root, 'missing-run')}`);
    const ok = spawnSync(TSX, ['src/cli/compare.ts', tool, zero], { encoding: 'utf8', timeout: 60_000 });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('## Arms (means over seeds)');
  }, 60_000);
});
