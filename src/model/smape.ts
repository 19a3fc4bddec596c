// Symmetric mean absolute percentage error, in %.
export function smape(actual: ArrayLike<number>, predicted: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const p = predicted[i]!;
    const d = Math.abs(a) + Math.abs(p);
    sum += d === 0 ? 0 : (2 * Math.abs(p - a)) / d;
  }
  return actual.length === 0 ? 0 : (100 * sum) / actual.length;
}
