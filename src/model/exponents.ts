// The exponent grid of the performance model normal form (PMNF): a factor x^i · log2(x)^j per
// parameter. `i` comes from Extra-P's default polynomial exponents, `j` from {0, 1, 2}.

export interface Fraction {
  num: number;
  den: number;
}

/** Polynomial exponents i, as exact fractions (Extra-P 4's default set). */
export const POLY_EXPONENTS: readonly Fraction[] = [
  [0, 1],
  [1, 4],
  [1, 3],
  [1, 2],
  [2, 3],
  [3, 4],
  [4, 5],
  [1, 1],
  [5, 4],
  [4, 3],
  [3, 2],
  [5, 3],
  [7, 4],
  [2, 1],
  [9, 4],
  [7, 3],
  [5, 2],
  [8, 3],
  [11, 4],
  [3, 1],
].map(([num, den]) => ({ num: num!, den: den! }));

export const LOG_EXPONENTS: readonly number[] = [0, 1, 2];

/** One single-parameter factor shape x^i · log2(x)^j (never the constant i = j = 0). */
export interface Shape {
  readonly exponent: number;
  readonly log: number;
}

/** Every combination of the polynomial and logarithmic exponents except the constant: 59 shapes. */
export const FULL_SHAPES: readonly Shape[] = POLY_EXPONENTS.flatMap((fraction) =>
  LOG_EXPONENTS.map((log) => ({ exponent: fraction.num / fraction.den, log })),
).filter((shape) => shape.exponent !== 0 || shape.log !== 0);

/**
 * Extra-P 4's default building blocks (42 shapes): log terms only with some exponents. Used by the
 * Extra-P-like baseline and to draw the benchmark's functions, which both modelers can represent.
 */
export const EXTRAP_SHAPES: readonly Shape[] = (
  [
    [0, 1, 1],
    [0, 1, 2],
    [1, 4, 0],
    [1, 3, 0],
    [1, 4, 1],
    [1, 3, 1],
    [1, 4, 2],
    [1, 3, 2],
    [1, 2, 0],
    [1, 2, 1],
    [1, 2, 2],
    [2, 3, 0],
    [3, 4, 0],
    [2, 3, 1],
    [3, 4, 1],
    [4, 5, 0],
    [2, 3, 2],
    [3, 4, 2],
    [1, 1, 0],
    [1, 1, 1],
    [1, 1, 2],
    [5, 4, 0],
    [5, 4, 1],
    [4, 3, 0],
    [4, 3, 1],
    [3, 2, 0],
    [3, 2, 1],
    [3, 2, 2],
    [5, 3, 0],
    [7, 4, 0],
    [2, 1, 0],
    [2, 1, 1],
    [2, 1, 2],
    [9, 4, 0],
    [7, 3, 0],
    [5, 2, 0],
    [5, 2, 1],
    [5, 2, 2],
    [8, 3, 0],
    [11, 4, 0],
    [3, 1, 0],
    [3, 1, 1],
  ] as const
).map(([num, den, log]) => ({ exponent: num / den, log }));

const EPSILON = 1e-9;

export function sameExponent(a: number, b: number): boolean {
  return Math.abs(a - b) < EPSILON;
}

/** The grid fraction equal to `value`, if any. */
export function gridFraction(value: number): Fraction | undefined {
  return POLY_EXPONENTS.find((fraction) => sameExponent(fraction.num / fraction.den, value));
}

/** `1/2`, `2`, or a decimal for a refined exponent (`1.137`). */
export function formatExponent(value: number): string {
  const fraction = gridFraction(value);
  if (fraction) return fraction.den === 1 ? String(fraction.num) : `${fraction.num}/${fraction.den}`;
  return trimNumber(value.toFixed(3));
}

function trimNumber(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** Evaluates x^i · log2(x)^j, with 0^0 = 1 and log2 terms of x ≤ 0 taken as 0. */
export function evalShape(x: number, exponent: number, log: number): number {
  let value = exponent === 0 ? 1 : Math.pow(x, exponent);
  if (log > 0) {
    const l = x > 0 ? Math.log2(x) : 0;
    value *= log === 1 ? l : Math.pow(l, log);
  }
  return value;
}

/**
 * The fewest nested loops over x whose trip counts (each at most x, or log2 x) make x^e·log2^g(x):
 * ⌈e⌉ + g. The taint report's loop depth over a parameter bounds it from above.
 */
export function loopDepth(exponent: number, log: number): number {
  return Math.ceil(exponent - 1e-9) + log;
}
