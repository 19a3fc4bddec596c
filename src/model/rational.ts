// Exact rational arithmetic for closed forms of counts.
//
// A count that is a polynomial in integer sizes (or has log2 factors of powers of two) has integer
// columns, so its coefficients are the rational solution of an integer linear system. Floating-point
// least squares on counts of 10^10 loses the last digits (PolyBench lu's 23/3·n³ came back as
// 7.66666679 with its constant dropped, off by 6.8 instructions): here the system is solved in
// BigInt fractions and the solution checked against every point with no rounding at all.

/** num/den in lowest terms, den > 0. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce(num: bigint, den: bigint): Fraction {
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

const ZERO: Fraction = { num: 0n, den: 1n };
const add = (a: Fraction, b: Fraction): Fraction => reduce(a.num * b.den + b.num * a.den, a.den * b.den);
export { add as addFractions };
const sub = (a: Fraction, b: Fraction): Fraction => reduce(a.num * b.den - b.num * a.den, a.den * b.den);
const mul = (a: Fraction, b: Fraction): Fraction => reduce(a.num * b.num, a.den * b.den);
const div = (a: Fraction, b: Fraction): Fraction => reduce(a.num * b.den, a.den * b.num);

/** The value as a float (exact for integers below 2^53). */
export function fractionValue(f: Fraction): number {
  return Number(f.num) / Number(f.den);
}

/** `23/3`, `-1/2`, `7`. */
export function formatFraction(f: Fraction): string {
  return f.den === 1n ? String(f.num) : `${f.num}/${f.den}`;
}

/** The integer value of x^exponent·log2(x)^log, or undefined where it is not an integer (or is too large to trust). */
export function integerShape(x: number, exponent: number, log: number): bigint | undefined {
  if (!Number.isSafeInteger(x) || !Number.isInteger(exponent) || exponent < 0) return undefined;
  let value = BigInt(x) ** BigInt(exponent);
  if (log > 0) {
    if (x < 1) return undefined;
    const l = Math.log2(x);
    if (!Number.isInteger(l) || 2 ** l !== x) return undefined;
    value *= BigInt(l) ** BigInt(log);
  }
  return value;
}

/**
 * The rational coefficients c with columns·c = y exactly at every point, or undefined when no such
 * c exists (the data are not in the span) or the columns are dependent. columns[t][i]: column t at
 * point i; y must be integers.
 */
export function solveExactly(columns: readonly (readonly bigint[])[], y: readonly bigint[]): Fraction[] | undefined {
  const k = columns.length;
  const n = y.length;
  if (k === 0 || k > n) return undefined;
  // Normal equations AᵀA c = Aᵀy: integer entries, solved by fraction-exact Gauss–Jordan elimination.
  const matrix: Fraction[][] = [];
  for (let r = 0; r < k; r++) {
    const row: Fraction[] = [];
    for (let c = 0; c < k; c++) {
      let sum = 0n;
      for (let i = 0; i < n; i++) sum += columns[r]![i]! * columns[c]![i]!;
      row.push({ num: sum, den: 1n });
    }
    let rhs = 0n;
    for (let i = 0; i < n; i++) rhs += columns[r]![i]! * y[i]!;
    row.push({ num: rhs, den: 1n });
    matrix.push(row);
  }
  for (let col = 0; col < k; col++) {
    const pivot = matrix.findIndex((row, r) => r >= col && row[col]!.num !== 0n);
    if (pivot < 0) return undefined;
    [matrix[col], matrix[pivot]] = [matrix[pivot]!, matrix[col]!];
    const pivotRow = matrix[col]!;
    const p = pivotRow[col]!;
    for (let c = col; c <= k; c++) pivotRow[c] = div(pivotRow[c]!, p);
    for (let r = 0; r < k; r++) {
      if (r === col) continue;
      const row = matrix[r]!;
      const factor = row[col]!;
      if (factor.num === 0n) continue;
      for (let c = col; c <= k; c++) row[c] = sub(row[c]!, mul(factor, pivotRow[c]!));
    }
  }
  const solution = matrix.map((row) => row[k]!);
  // Least squares always has a solution; exactness is that it reproduces every point.
  for (let i = 0; i < n; i++) {
    let value = ZERO;
    for (let t = 0; t < k; t++) value = add(value, mul(solution[t]!, { num: columns[t]![i]!, den: 1n }));
    if (value.den !== 1n || value.num !== y[i]!) return undefined;
  }
  return solution;
}
