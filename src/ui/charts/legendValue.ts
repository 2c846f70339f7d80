/** What a chart's legend prints for a series when no point is hovered: its latest value. */
/** A legend value a class can read: three significant figures, whole numbers from 100 up. */
export function formatLegendValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return String(Math.round(value));
  return String(Number(value.toPrecision(3)));
}

/** The last non-null value of a column, or null when it has none. */
export function latestValue(column: ArrayLike<number | null | undefined>): number | null {
  for (let i = column.length - 1; i >= 0; i--) {
    const value = column[i];
    if (value !== null && value !== undefined) return value;
  }
  return null;
}
