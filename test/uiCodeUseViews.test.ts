/**
 * Issue 22 in the lab: the calls histogram's nine bins (8+ last) for new and older runs, the
 * evaluation's figures by depth, the compare table's start and final self-correction shares with
 * the figures by depth in the one-call cell's tooltip; and run data from before the figures loads.
 * The evaluation panel says what it evaluates: the set passAtOneJob.ts takes, counted by kind.
 * Components are rendered to a string, as the page renders them.
 */
import { createElement, type FunctionComponent } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { PRESETS } from '../src/core/experiment';
import type { EvalBlock } from '../src/core/eval/evalReport';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { CallsHistogram } from '../src/ui/charts/CallsHistogram';
import { LabContext } from '../src/ui/LabContext';
import type { LabController } from '../src/ui/controller/labController';
import { ComparePanel } from '../src/ui/panels/ComparePanel';
import { EvaluationPanel } from '../src/ui/panels/EvaluationPanel';
import { checkPassAtOne, checkStepMetrics, RunDataError } from '../src/core/archive/runChecks';
import { makeRun, type LabRun } from '../src/ui/state/labRun';
import { createLabStore, putRun, type LabState } from '../src/ui/state/labStore';
import { defaultUrlState } from '../src/ui/state/urlState';
import { metricsAt } from './uiFixtures';
import { evalSet } from '../src/core/tasks/splits';

const config = { ...PRESETS.quick, steps: 3, seed: 1 };

/** A run with a saved checkpoint (so the evaluation panel offers it); runs differ in the seed only, one arm. */
function run(id: string, history: StepMetrics[], extra: Partial<LabRun> = {}): LabRun {
  return { ...makeRun({ id, name: id, preset: 'quick', config: { ...config, seed: id.length }, createdAt: 1, history, checkpointStep: 3 }), ...extra };
}

/** `component` rendered with a store holding `runs`, the first selected and all compared. */
function render(component: FunctionComponent, runs: LabRun[]): string {
  const lab = createLabStore(defaultUrlState());
  for (const r of [...runs].reverse()) putRun(lab, r);
  lab.setState({ selectedRunId: runs[0].id, comparedRunIds: runs.map((r) => r.id) });
  // A server render reads a store's initial state, so the state is handed over as one.
  const state = lab.getState();
  const store = createStore<LabState>(() => state);
  // The views only call the controller from event handlers, which a string render never fires.
  const html = renderToString(createElement(LabContext.Provider, { value: { store, controller: {} as LabController } }, createElement(component)));
  // Without the markers React puts between adjacent texts.
  return html.replaceAll('<!-- -->', '');
}

/** The text of every element with `className`, in order (plain texts, no markup inside). */
function texts(html: string, className: string): string[] {
  return [...html.matchAll(new RegExp(`class="${className}"[^>]*>([^<]*)<`, 'g'))].map((m) => m[1]);
}

describe('the calls histogram', () => {
  it('draws nine bins, the last 8+, for a step of the fixed bins', () => {
    const html = render(CallsHistogram, [run('new', [metricsAt(1, { callsHistogram: [2, 3, 0, 0, 0, 0, 0, 1, 4] })])]);
    expect(texts(html, 'bar-label')).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8+']);
    expect(texts(html, 'bar-count')).toEqual(['2', '3', '0', '0', '0', '0', '0', '1', '4']);
    expect(html).toContain('8+ calls: 4');
    expect(html).toContain('10 answers; x = executed calls (8+: 8 or more)');
  });

  it("bins an older run's histogram the same way: a short one padded, a long one folded into 8+", () => {
    const short = render(CallsHistogram, [run('old', [metricsAt(1, { callsHistogram: [3, 1] })])]);
    expect(texts(short, 'bar-count')).toEqual(['3', '1', '0', '0', '0', '0', '0', '0', '0']);
    const long = render(CallsHistogram, [run('old', [metricsAt(1, { callsHistogram: [0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 5] })])]);
    expect(texts(long, 'bar-count')).toEqual(['0', '1', '0', '0', '0', '0', '0', '0', '7']);
  });
});

const block = (nmax: number, figures: Partial<EvalBlock>): EvalBlock => ({
  nmax, samples: 8, 'pass@1': 0.5, standardError: 0.1, byTier: { easy: 1, medium: 0.5, hard: null },
  byKind: { arithmetic: 0.5, compose: null, search: null, errorProne: null, multiStep: null, chain: null }, byFamily: {}, byDepth: [null, null, null, null, null], perProblem: [0.5, 0.5],
  codeRatio: 1, codeLines: 1, correctCodeCount: 8, codePassRate: 1, invocationPosition: 0.1, callsPerResponse: 1.25,
  callsHistogram: [0, 6, 2, 0, 0, 0, 0, 0, 0], singleCallShare: 0.75, singleCallShareByDepth: [null, null, null, null, null], callsPerResponseByDepth: [null, null, null, null, null],
  selfCorrections: 2, selfCorrectedResponses: 2, selfCorrectionShare: 0.25, ...figures,
});

function evaluated(blocks: EvalBlock[]): LabRun {
  const report = { checkpoint: 'r @ step 3', format: 'zerotir' as const, problems: 2, k: 4, temperature: 1, topP: 0.7, seed: 0, maxResponseTokens: 96, maxOutputChars: 64, wallSeconds: 1, problemDepths: [1, 2], blocks };
  return run('evaluated', [metricsAt(3)], { passAtOne: { step: 3, report, evaluatedAt: 1 } });
}

/** The cells of the rows with `testId`, each row's th then tds. */
function rows(html: string, testId: string): string[][] {
  return [...html.matchAll(new RegExp(`<tr data-testid="${testId}">([\\s\\S]*?)</tr>`, 'g'))].map((m) => [...m[1].matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((c) => c[1]));
}

describe("the evaluation panel's description", () => {
  it('counts the problems the worker evaluates, by kind, instead of the 64 arithmetic test problems of the first world', () => {
    const html = render(EvaluationPanel, [run('plain', [metricsAt(3)])]);
    const problems = evalSet();
    const count = (kind: string) => problems.filter((p) => p.kind === kind).length;
    expect(html).toContain(
      `k answers to each of the ${problems.length} problems of the evaluation set (${count('arithmetic')} arithmetic, ${count('compose')} compose, ` +
        `${count('search')} search, ${count('errorProne')} error-prone, ${count('multiStep')} multi-step, ${count('chain')} chain), sampled with`,
    );
    expect(problems.length).toBe(592);
  });
});

describe('the evaluation by depth', () => {
  it('gives pass@1, calls per answer and the single-call share at each depth some block measured', () => {
    const html = render(EvaluationPanel, [
      evaluated([
        block(1, { byDepth: [0.75, 0.5, null, 0, null], callsPerResponseByDepth: [1, 1, null, 1, null], singleCallShareByDepth: [1, 1, null, null, null] }),
        block(4, { byDepth: [0.75, 1, null, 0.25, null], callsPerResponseByDepth: [1, 2, null, 3.5, null], singleCallShareByDepth: [1, 0.5, null, 0, null] }),
      ]),
    ]);
    expect(html).toContain('data-testid="evaluation-depth-table"');
    // Depths 1, 2 and 4: pass@1, calls per answer, then right with one call.
    expect(rows(html, 'evaluation-depth-row')).toEqual([
      ['1', '0.75', '0.50', '0.00', '1.00', '1.00', '1.00', '1.00', '1.00', '–'],
      ['4', '0.75', '1.00', '0.25', '1.00', '2.00', '3.50', '1.00', '0.50', '0.00'],
    ]);
    expect(rows(html, 'evaluation-row')).toHaveLength(2);
  });

  it('shows no depth table for a report from before the figures, read through the run checks', () => {
    const { singleCallShareByDepth: _s, callsPerResponseByDepth: _c, byDepth: _p, ...old } = block(2, {});
    const { problemDepths: _d, ...oldReport } = evaluated([]).passAtOne!.report;
    const result = checkPassAtOne({ step: 3, evaluatedAt: 1, report: { ...oldReport, blocks: [old] } }, 'passAtOne');
    expect(result!.report.problemDepths).toEqual([]);
    expect(result!.report.blocks[0].byDepth).toEqual([null, null, null, null, null]);
    expect(result!.report.blocks[0].singleCallShareByDepth).toEqual([null, null, null, null, null]);
    expect(result!.report.blocks[0].callsPerResponseByDepth).toEqual([null, null, null, null, null]);
    const html = render(EvaluationPanel, [run('evaluated', [metricsAt(3)], { passAtOne: result })]);
    expect(rows(html, 'evaluation-row')).toHaveLength(1);
    expect(html).not.toContain('evaluation-depth-table');
  });

  it("refuses a stored report whose problems' depths are not depths", () => {
    const report = { ...evaluated([block(2, {})]).passAtOne!.report, problemDepths: [1, 6] };
    expect(() => checkPassAtOne({ step: 3, evaluatedAt: 1, report }, 'passAtOne')).toThrow('passAtOne.report.problemDepths[1] is not a depth from 1 to 5');
  });
});

describe('the compare table', () => {
  /** Steps 1-4: self-correction share 0.1, 0.2, 0.3 then 0.6; depths 1 and 3 measured. */
  const measured = [1, 2, 3, 4].map((step) =>
    metricsAt(step, {
      codeCallFrequency: 0.5,
      selfCorrectionShare: [0.1, 0.2, 0.3, 0.6][step - 1],
      singleCallShareByDepth: [1, null, 0.5, null, null],
      callsPerResponseByDepth: [1, null, 2.25, null, null],
    }),
  );
  /** A run recorded before the figures: none of them. */
  const old = [1, 2].map((step) => metricsAt(step, { codeCallFrequency: 0.25 }));

  it('gives the start and final self-correction shares, and the figures by depth on hover of the one-call cell', () => {
    const html = render(ComparePanel, [run('measured', measured), run('old', old)]);
    expect(html).toContain('self-correcting (first 3 steps)</th><th>self-correcting (final)</th>');
    const [first, second] = rows(html, 'compare-row');
    // The last two cells: the start (steps 1-3) and the final (all four) shares.
    expect(first.slice(-2)).toEqual(['0.20', '0.30']);
    expect(second.slice(-2)).toEqual(['–', '–']);
    expect(html).toContain('title="depth 1: 1.0 calls per answer, 1.00 of right ones with one call\ndepth 3: 2.3 calls per answer, 0.50 of right ones with one call"');
    // The old run's one-call cell has no tooltip.
    expect(html.match(/title="depth /g)).toHaveLength(2); // the measured run's row and its arm's
  });

  it("names each matrix row's seed, so two seeds' runs of one Nmax are told apart", () => {
    const html = render(ComparePanel, [run('s', old, { evaluation: { 0: 0.25 } }), run('ss', old, { evaluation: { 0: 0.5 } })]);
    const matrix = html.slice(html.indexOf('data-testid="compare-matrix"'), html.indexOf('</table>', html.indexOf('data-testid="compare-matrix"')));
    const cells = [...matrix.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1].matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((c) => c[1]));
    const nmax = String(config.nmax);
    expect(cells).toEqual([
      ['run', 'train Nmax', 'seed', '0'],
      ['s (greedy accuracy)', nmax, '1', '0.25'],
      ['ss (greedy accuracy)', nmax, '2', '0.50'],
    ]);
  });
});

describe('run data from before the figures', () => {
  it('reads a step without the per-depth figures as not measured, and checks them when there', () => {
    const older = checkStepMetrics({ step: 2, accuracy: 0.5, callsHistogram: [3, 1] }, 'steps[0]');
    expect(older.singleCallShareByDepth).toBeNull();
    expect(older.callsPerResponseByDepth).toBeNull();
    expect(older.callsHistogram).toEqual([3, 1]);
    const newer = checkStepMetrics({ step: 2, singleCallShareByDepth: [1, null, 0.5, null, null], callsPerResponseByDepth: [1, 2] }, 'steps[0]');
    expect(newer.singleCallShareByDepth).toEqual([1, null, 0.5, null, null]);
    // A shorter list (fewer depths than now) reads the missing depths as not measured.
    expect(newer.callsPerResponseByDepth).toEqual([1, 2, null, null, null]);
    expect(() => checkStepMetrics({ step: 2, singleCallShareByDepth: [1, 1, 1, 1, 1, 1] }, 'steps[0]')).toThrow(
      new RunDataError('steps[0].singleCallShareByDepth has 6 entries, more than the 5 a run can have'),
    );
    expect(() => checkStepMetrics({ step: 2, callsPerResponseByDepth: [1, 'x'] }, 'steps[0]')).toThrow('steps[0].callsPerResponseByDepth[1] is not a number');
    expect(() => checkStepMetrics({ step: 2, callsPerResponseByDepth: '1,2' }, 'steps[0]')).toThrow('steps[0].callsPerResponseByDepth is not a list');
  });
});
