import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { SCALAR_METRICS } from '../src/core/metrics/stepMetrics';
import { CSV_COLUMNS, exportFileName, runCsv, runExport } from '../src/core/archive/runExport';
import { metricsAt, sampleAt } from './uiFixtures';

const history = [
  metricsAt(0, { testAccuracy: 0.1 }),
  metricsAt(1, { accuracy: 0.2, codeCallFrequency: 0.5, callsHistogram: [4, 4], seconds: { generate: 1.5, execute: 0.25, update: 0.75 } }),
  metricsAt(2, { accuracy: 0.4, codeCallFrequency: 0.75 }),
  metricsAt(3, { accuracy: 0.8, codeCallFrequency: 1, testAccuracy: 0.3 }),
];

describe('run export', () => {
  it('writes the run as JSON: config, seed, the StepMetrics as recorded, samples and the summary', () => {
    const config = { ...PRESETS.quick, seed: 42 };
    const samples = [sampleAt(3, 1)];
    const exported = JSON.parse(
      JSON.stringify(runExport({ name: 'quick run', preset: 'quick', config, metrics: history, samples, evaluation: { 0: 0.25, 2: 0.5 } })),
    );
    expect(Object.keys(exported).sort()).toEqual(['config', 'evaluation', 'format', 'metrics', 'name', 'passAtOne', 'preset', 'samples', 'seed', 'startFrom', 'summary']);
    expect(exported.startFrom).toBe('base');
    expect(exported.passAtOne).toBeNull();
    expect(exported.format).toBe('tir-lab-run');
    expect(exported.seed).toBe(42);
    expect(exported.config).toEqual(config);
    expect(exported.metrics).toEqual(history);
    expect(exported.samples).toEqual(samples);
    expect(exported.evaluation).toEqual({ 0: 0.25, 2: 0.5 });
    expect(exported.summary.steps).toBe(3);
    // accuracy 0.2, 0.4, 0.8 at steps 1..3: mean 1.4/3, strictly rising.
    expect(exported.summary.metrics.accuracy.first10).toBeCloseTo(1.4 / 3, 12);
    expect(exported.summary.metrics.accuracy.spearmanRho).toBe(1);
    expect(exported.summary.metrics.accuracy.points).toBe(3);
    expect(exported.summary.metrics.testAccuracy.points).toBe(2);
    expect(Object.keys(exported.summary.metrics)).toEqual([...SCALAR_METRICS]);
  });

  it('writes CSV with one row per step, the scalar metrics and the step-time split, blanks for missing figures', () => {
    const csv = runCsv(history.slice(0, 2));
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toBe(['step', ...SCALAR_METRICS, 'generateSeconds', 'executeSeconds', 'updateSeconds'].join(','));
    expect(lines[0].startsWith('step,accuracy,testAccuracy,codeCallFrequency,')).toBe(true);
    const row = (step: number, figures: Record<string, number>, seconds: string) =>
      [String(step), ...SCALAR_METRICS.map((name) => (name in figures ? String(figures[name]) : '')), seconds].join(',');
    expect(lines[1]).toBe(row(0, { testAccuracy: 0.1 }, ',,'));
    expect(lines[2]).toBe(row(1, { accuracy: 0.2, codeCallFrequency: 0.5 }, '1.5,0.25,0.75'));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.split(',').length === CSV_COLUMNS.length)).toBe(true);
    expect(csv.endsWith('\n')).toBe(true);
  });

  it('names files from the run name with safe characters only', () => {
    expect(exportFileName('classroom Nmax 2 ppo seed 1', 'json')).toBe('classroom-Nmax-2-ppo-seed-1.json');
    expect(exportFileName('a/b\\c fork@12', 'csv')).toBe('a-b-c-fork-12.csv');
    expect(exportFileName('///', 'json')).toBe('run.json');
  });
});
