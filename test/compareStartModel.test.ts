/**
 * npm run compare groups a lab export with a run directory of the same config and start model into
 * one arm, and names the start model when it tells arms apart; a malformed export is refused in one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareCommand, InputError, type CompareArgs } from '../src/cli/compare';
import { PRESETS } from '../src/core/experiment';
import { runExport } from '../src/core/archive/runExport';
import { emptyStepMetrics } from '../src/core/metrics/stepMetrics';

const TSX = join('node_modules', '.bin', 'tsx');
const root = mkdtempSync(join(tmpdir(), 'compare-start-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const args = (inputs: string[]): CompareArgs => ({ inputs, evalFiles: [], reference: null, target: null, json: true });
const metrics = (accuracy: number) => [{ ...emptyStepMetrics(1), accuracy }, { ...emptyStepMetrics(2), accuracy }];

/** A run directory of npm run train at `seed`, its summary naming `base` as the start model (none when undefined). */
function runDir(name: string, seed: number, base: string | undefined): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'metrics.jsonl'), metrics(0.5).map((m) => JSON.stringify(m)).join('\n'));
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ config: { ...PRESETS.classroom, seed }, ...(base === undefined ? {} : { base }) }));
  return dir;
}

/** The lab's export of a classroom run at `seed` (the base model is its start, as for every zerotir run). */
function labExport(name: string, seed: number): string {
  const file = join(root, `${name}.json`);
  writeFileSync(file, JSON.stringify(runExport({ name, preset: 'classroom', config: { ...PRESETS.classroom, seed }, metrics: metrics(0.75), samples: [], evaluation: null })));
  return file;
}

describe('npm run compare: a lab export beside a run directory', () => {
  it('is one arm with it when both started from the shipped base model, however the path is written', () => {
    for (const base of ['public/models/base', './public/models/base/', join(process.cwd(), 'public/models/base')]) {
      const report = JSON.parse(compareCommand(args([runDir('dir-s6', 6, base), labExport('lab-s5', 5)])));
      expect(report.differences).toEqual([]);
      expect(report.arms.map((a: { n: number; seeds: number[]; label: string }) => [a.label, a.n, a.seeds])).toEqual([['same config', 2, [6, 5]]]);
      // Accuracy 0.5 and 0.75: the arm's mean.
      expect(report.arms[0].accuracyLast10).toBe(0.625);
    }
  });

  it('names the start model when it differs, or is unknown on one side', () => {
    const other = JSON.parse(compareCommand(args([runDir('cold-s6', 6, 'runs/my-base'), labExport('lab-s5', 5)])));
    expect(other.differences).toEqual([{ field: 'start', values: ['runs/my-base', 'public/models/base'] }]);
    const unknown = compareCommand({ ...args([runDir('old-s6', 6, undefined), labExport('lab-s5', 5)]), json: false });
    expect(unknown).toContain('Arms differ in: start: ? vs public/models/base.');
    expect(unknown).not.toContain('The known configs do not differ.');
  });
});

describe('npm run compare: a malformed lab export', () => {
  it('is refused by the place of its fault, in one line (exit 2)', () => {
    const file = join(root, 'null-step.json');
    writeFileSync(file, '{"format":"tir-lab-run","metrics":[null]}');
    expect(() => compareCommand(args([file]))).toThrow(new InputError(`${file}: metrics[0]: a metrics line has no step: null`));
    const done = spawnSync(TSX, ['src/cli/compare.ts', file], { encoding: 'utf8', timeout: 60_000 });
    expect([done.status, done.stderr]).toEqual([2, `compare: ${file}: metrics[0]: a metrics line has no step: null\n`]);
    const config = join(root, 'string-config.json');
    writeFileSync(config, '{"format":"tir-lab-run","config":"classroom","metrics":[]}');
    expect(() => compareCommand(args([config]))).toThrow(`${config}: its config is not an object`);
  }, 60_000);
});
