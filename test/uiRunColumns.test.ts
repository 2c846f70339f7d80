import { describe, expect, it } from 'vitest';
import { SCALAR_METRICS, type StepMetrics } from '../src/core/metrics/stepMetrics';
import { appendMetrics, columnsFromHistory, emptyColumns, metricsRows, rowIs, truncateColumns } from '../src/ui/state/runColumns';
import { metricsAt } from './uiFixtures';

/** A step with every figure measured: no field left null, so a field the columns do not keep shows. */
function fullStep(step: number): StepMetrics {
  const row = metricsAt(step, {
    seconds: { generate: 1.5 + step, execute: 0.25, update: 0.75 },
    callsHistogram: [3, 4, 1],
    singleCallShareByDepth: [1, null, 0.5, null, null],
    callsPerResponseByDepth: [1, 2, 3.5, null, null],
    accuracyByKind: { arithmetic: 0.5, compose: 0.25, search: null, errorProne: 0, multiStep: 1, chain: null },
    accuracyByFamily: { oneDigitSum: 0.5, product: 0.75 },
  });
  SCALAR_METRICS.forEach((name, i) => (row[name] = step + i / 8));
  return row;
}

describe("a run's metrics as columns, rows derived at the edge", () => {
  it('gives back every field of every row, figure for figure', () => {
    const rows = [fullStep(0), fullStep(1), fullStep(5)];
    expect(Object.entries(rows[0]).filter(([, value]) => value === null)).toEqual([]);
    const columns = columnsFromHistory(rows);
    expect(columns.step).toEqual([0, 1, 5]);
    expect(columns.generateSeconds).toEqual([1.5, 2.5, 6.5]);
    expect(columns.kl).toEqual([7 / 8, 1 + 7 / 8, 5 + 7 / 8]);
    expect(metricsRows(columns)).toEqual(rows);
    expect(JSON.stringify(metricsRows(columns))).toBe(JSON.stringify(rows));
  });

  it('keeps a figure that is not a finite number as null (NaN is null in JSON too), and an absent step time as null seconds', () => {
    const diverged = { ...metricsAt(3, { kl: Number.NaN, accuracy: Number.POSITIVE_INFINITY, entropy: 0.5 }), seconds: null };
    const [row] = metricsRows(columnsFromHistory([diverged]));
    expect(row.kl).toBeNull();
    expect(row.accuracy).toBeNull();
    expect(row.entropy).toBe(0.5);
    expect(row.seconds).toBeNull();
    expect(JSON.parse(JSON.stringify(row))).toEqual(JSON.parse(JSON.stringify(diverged)));
  });

  it('tells a row still held from one replaced (what persistence writes again)', () => {
    const columns = columnsFromHistory([fullStep(0), fullStep(1), fullStep(2)]);
    const written = metricsRows(columns);
    expect([0, 1, 2].map((i) => rowIs(columns, i, written[i]))).toEqual([true, true, true]);
    expect(rowIs(columns, 1, { ...written[1], accuracyByFamily: { oneDigitSum: 0.5 } })).toBe(false);
    expect(rowIs(columns, 1, { ...written[1], seconds: null })).toBe(false);
    expect(rowIs(columns, 1, { ...written[1], gradNorm: 0 })).toBe(false);
    truncateColumns(columns, 1);
    expect(columns.step).toEqual([0]);
    expect(columns.callsHistogram).toHaveLength(1);
    expect(rowIs(columns, 0, written[0])).toBe(true);
  });

  it('gives the columns a revision no columns had before at every change: append, a truncation that drops steps', () => {
    const a = emptyColumns();
    const b = emptyColumns();
    const seen = [a.revision, b.revision];
    appendMetrics(a, fullStep(0));
    seen.push(a.revision);
    appendMetrics(a, fullStep(1));
    seen.push(a.revision);
    truncateColumns(a, 5); // nothing at or after step 5: no change
    expect(a.revision).toBe(seen.at(-1));
    truncateColumns(a, 1);
    seen.push(a.revision);
    expect(a.step).toEqual([0]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(b.revision).toBe(seen[1]);
  });
});
