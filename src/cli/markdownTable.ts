/** The markdown of `npm run compare`: a table, and a figure with its digits ('–' for none). */
export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function fixed(x: number | null, digits = 3): string {
  return x === null ? '–' : x.toFixed(digits);
}
