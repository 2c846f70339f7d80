/** Redoes a shown advantage sum, "(1 − 0.412 + 0.020) ÷ 0.480", from its printed figures, as a student would. */
export function redo(sum: string): number {
  const [, inside, scale] = sum.match(/^\((.*)\) ÷ (\S+)$/)!;
  const [first, ...rest] = inside.split(' ');
  let total = Number(first);
  for (let i = 0; i < rest.length; i += 2) total += (rest[i] === '+' ? 1 : -1) * Number(rest[i + 1]);
  return total / Number(scale);
}
