// Exact closed forms for exact data (instruction counts, visit counts, loop iterations).
//
// When every repetition of every point is identical there is no noise to trade terms against: a
// model is either right at every point (to floating-point precision) or wrong. The PMNF search of
// search.ts, with one shape per parameter and one term per parameter subset, cannot hold
// 128·t·n³ − 734·t·n² + 1434·t·n − 929·t + 100 (a stencil's (n−2)³ bounds), so here the space is
// the full polynomial one: every monomial Π x_l^e_l with e_l ≤ the degree bound of parameter l,
// over the parameter subsets allowed, and then the same with one log2 factor per parameter
// (x^e·log2(x), e below the bound: a loop whose trip count is log n is one level of the nest).
// The smallest set of monomials reproducing every point is found by backward elimination from the
// whole space when it fits the points, otherwise by forward selection; coefficients are then made
// rational where small fractions reproduce the data as well (n·(n−1)/2 gives 0.5, not 0.4999…).
import { evalShape } from './exponents.js';
import { LeastSquares } from './linalg.js';
import { leadingTerms } from './leading.js';
import { linesExplained, linewiseExact } from './exact-lines.js';
import { formatFraction, fractionValue, integerShape, solveExactly, type Fraction } from './rational.js';
import type { Point, Term } from './types.js';

/** Largest residual, relative to the largest value, that still counts as reproducing a point. */
export const EXACT_TOLERANCE = 1e-9;
/**
 * Counts are integers: a form reproduces a count when it is off by less than half a unit (rounding
 * gives the count back). Relative precision alone let a form off by 6.8 instructions pass on
 * counts of 10^10.
 */
export const COUNT_TOLERANCE = 0.5;
/** Degree bound per parameter without a prior (matmul's n³; at most distinct values − 2). */
export const DEFAULT_DEGREE = 3;
/** Fractions up to this denominator are tried for the coefficients. */
const MAX_DENOMINATOR = 64;

/** A monomial: per parameter, its exponent and the power of its log2 factor. */
export interface Monomial {
  exponents: number[];
  logs: number[];
}

/** Where the exact search looks: a polynomial degree bound per parameter and the allowed subsets. */
export interface ExactSpace {
  degrees: number[];
  /** Parameter subsets (bit masks) a monomial may range over; undefined: every subset. */
  masks?: readonly number[];
  /**
   * Loop depths per parameter, one vector per loop nest (the taint dependency's monomials): a
   * monomial x^e·log2^g(x)·… is in the space when e + g ≤ the depth over x in every parameter for
   * one of them (each loop level multiplies by at most x or by log2 x, so log2²(n) needs two
   * levels over n). Without depths, at most one log2 factor per parameter.
   */
  depths?: readonly (readonly number[])[];
}

export interface ExactModel {
  /** The constant first (possibly 0), then the monomials. */
  terms: Term[];
  /** The terms no other term outgrows in every parameter (`128·t·n³`). */
  leading: Term[];
  /** How many points check the form: beyond its coefficients, and along each parameter beyond its functions of it. */
  margin: number;
  /** The coefficients are fractions that reproduce every point exactly (solved in rational arithmetic). */
  rational: boolean;
}

/**
 * Every repetition of every point is the same finite number, and that says something: some point
 * was repeated, or every value is an integer (counts). One repetition of a time is not exact data.
 */
export function isExactData(points: readonly Point[]): boolean {
  if (points.length === 0) return false;
  let repeated = false;
  let integers = true;
  for (const point of points) {
    if (point.values.length === 0) return false;
    const first = point.values[0]!;
    if (!Number.isFinite(first)) return false;
    for (const value of point.values) if (value !== first) return false;
    if (point.values.length > 1) repeated = true;
    if (!Number.isSafeInteger(first)) integers = false;
  }
  return repeated || integers;
}

/**
 * The exact closed form of `y` at `coords` (coords[l][i]: parameter l at point i), searched inside
 * the prior's space first and, failing that, in the default space; undefined when no form of the
 * space reproduces every point with at least one point to spare.
 */
export function exactModel(
  coords: readonly Float64Array[],
  y: Float64Array,
  params: readonly string[],
  usable: readonly boolean[],
  prior?: ExactSpace,
): ExactModel | undefined {
  const distinct = coords.map((column) => new Set(column).size);
  const logsAllowed = coords.map((column) => column.every((x) => x >= 1));
  for (const space of searchSpaces(distinct, usable, prior)) {
    // Smaller spaces first (degree bound 1, 2, … per parameter): fewer candidates than points
    // lets the whole space be fitted, and the fewest, lowest terms are preferred anyway.
    const top = Math.max(0, ...space.degrees);
    const stages: { degrees: number[]; logs: boolean }[] = [];
    for (let d = 1; d <= top; d++) {
      const degrees = space.degrees.map((bound) => Math.min(bound, d));
      stages.push({ degrees, logs: false }, { degrees, logs: true });
    }
    if (top === 0) stages.push({ degrees: space.degrees, logs: false });
    for (const stage of stages) {
      const candidates = monomials(
        { ...space, degrees: stage.degrees },
        stage.logs ? logsAllowed : coords.map(() => false),
      );
      const found = smallestExact(
        coords,
        y,
        candidates,
        distinct,
        (monomials) => Math.min(...axisMargins(monomials, distinct)) >= 1,
      );
      if (!found) continue;
      const margin = Math.min(y.length - found.monomials.length, ...axisMargins(found.monomials, distinct));
      // A form with as many functions of a parameter as it has values interpolates: no check.
      if (margin < 1) continue;
      const terms = found.monomials.map((monomial, t) =>
        toTerm(monomial, found.coefficients[t]!, params, found.fractions?.[t]),
      );
      return { terms, leading: leadingTerms(terms), margin, rational: found.rational };
    }
  }
  return undefined;
}

/** The prior's space (when given), then the default one; degrees capped by the values measured. */
function searchSpaces(distinct: readonly number[], usable: readonly boolean[], prior?: ExactSpace): ExactSpace[] {
  const cap = (l: number, degree: number) => (usable[l] ? Math.max(0, Math.min(degree, distinct[l]! - 2)) : 0);
  const spaces: ExactSpace[] = [];
  if (prior) {
    spaces.push({
      degrees: prior.degrees.map((d, l) => cap(l, d)),
      ...(prior.masks ? { masks: prior.masks } : {}),
      ...(prior.depths && prior.depths.length > 0 ? { depths: prior.depths } : {}),
    });
  }
  spaces.push({ degrees: distinct.map((_, l) => cap(l, DEFAULT_DEGREE)) });
  return spaces;
}

/**
 * Where no exact form was found: the parameters along whose lines no set of the spaces' functions
 * of it, with a value to spare, fits the data. Either the count is outside the space there, or it
 * uses as many functions of the parameter as the grid has values of it (1, n, n·log2 n, log2 n,
 * n²·log2 n on five sizes), which more values of it would tell apart.
 */
export function unexplainedAlong(
  coords: readonly Float64Array[],
  y: Float64Array,
  usable: readonly boolean[],
  prior?: ExactSpace,
): number[] {
  const distinct = coords.map((column) => new Set(column).size);
  const logsAllowed = coords.map((column) => column.every((x) => x >= 1));
  const spaces = searchSpaces(distinct, usable, prior).map((space) => monomials(space, logsAllowed));
  return coords
    .map((_, l) => l)
    .filter(
      (l) =>
        usable[l] &&
        !spaces.some((candidates) => linesExplained(coords, y, l, candidates, Math.max(0, distinct[l]! - 2))),
    );
}

/**
 * Per parameter: its distinct values minus the distinct functions of it the form uses (the
 * constant included): how many values along that parameter check the form.
 */
function axisMargins(monomials: readonly Monomial[], distinct: readonly number[]): number[] {
  return distinct.map((count, l) => {
    const functions = new Set(monomials.map((mono) => `${mono.exponents[l]},${mono.logs[l]}`));
    functions.add('0,0');
    return functions.size > 1 ? count - functions.size : Infinity;
  });
}

/** The constant, then every monomial of the space; lower total degree first. */
function monomials(space: ExactSpace, logs: readonly boolean[]): Monomial[] {
  const m = space.degrees.length;
  const result: Monomial[] = [{ exponents: new Array(m).fill(0), logs: new Array(m).fill(0) }];
  let usable = 0;
  for (let l = 0; l < m; l++) if (space.degrees[l]! > 0) usable |= 1 << l;
  const masks = space.masks ?? Array.from({ length: usable }, (_, i) => i + 1);
  for (const mask of new Set(masks)) {
    if (mask === 0 || (mask & usable) !== mask) continue;
    const members = [];
    for (let l = 0; l < m; l++) if (mask & (1 << l)) members.push(l);
    // Per member: (exponent, log) options with e + g ≤ D: x^1..x^D, then log2(x)·x^0..x^(D−1),
    // then (with loop depths) higher powers of the logarithm.
    const maxLog = space.depths ? Infinity : 1;
    const options = members.map((l) => {
      const list: [number, number][] = [];
      const degree = space.degrees[l]!;
      for (let g = 0; g <= (logs[l] ? Math.min(maxLog, degree) : 0); g++)
        for (let e = g === 0 ? 1 : 0; e + g <= degree; e++) list.push([e, g]);
      return list;
    });
    const inDepths = (mono: Monomial) =>
      !space.depths ||
      space.depths.some((depth) => mono.exponents.every((e, l) => e + mono.logs[l]! <= (depth[l] ?? 0)));
    const pick = new Array<number>(members.length).fill(0);
    for (;;) {
      const mono: Monomial = { exponents: new Array(m).fill(0), logs: new Array(m).fill(0) };
      members.forEach((l, k) => {
        const [e, g] = options[k]![pick[k]!]!;
        mono.exponents[l] = e;
        mono.logs[l] = g;
      });
      if (inDepths(mono)) result.push(mono);
      let k = 0;
      while (k < members.length && ++pick[k]! >= options[k]!.length) pick[k++] = 0;
      if (k === members.length) break;
    }
  }
  const weight = monomialWeight;
  return [result[0]!, ...result.slice(1).sort((a, b) => weight(a) - weight(b))];
}

/** Growth order of a monomial: its total degree, a log2 factor counting half a degree. */
export function monomialWeight(mono: Monomial): number {
  return mono.exponents.reduce((a, b) => a + b, 0) + 0.5 * mono.logs.reduce((a, b) => a + b, 0);
}

function column(coords: readonly Float64Array[], mono: Monomial): Float64Array {
  const n = coords[0]?.length ?? 0;
  const out = new Float64Array(n).fill(1);
  for (let l = 0; l < coords.length; l++) {
    if (mono.exponents[l] === 0 && mono.logs[l] === 0) continue;
    for (let i = 0; i < n; i++) out[i]! *= evalShape(coords[l]![i]!, mono.exponents[l]!, mono.logs[l]!);
  }
  return out;
}

interface Found {
  monomials: Monomial[];
  coefficients: number[];
  /** The exact coefficients, where the system was solved in rational arithmetic. */
  fractions?: Fraction[];
  rational: boolean;
}

/** The fewest candidate columns reproducing y exactly, with one point to spare at least. */
function smallestExact(
  coords: readonly Float64Array[],
  y: Float64Array,
  candidates: readonly Monomial[],
  distinct: readonly number[],
  checked: (monomials: readonly Monomial[]) => boolean,
): Found | undefined {
  const n = y.length;
  if (n < 2) return undefined;
  const columns = candidates.map((mono) => column(coords, mono));
  const solver = new LeastSquares(n, Math.min(candidates.length, n) + 1);
  const ones = new Float64Array(n).fill(1);
  const scale = y.reduce((a, b) => Math.max(a, Math.abs(b)), 0) || 1;
  // Counts (integers) must be reproduced to within half a count; other exact data (identical
  // repeated times) to floating-point precision.
  const counts = y.every((value) => Number.isSafeInteger(value));
  const tolerance = counts ? Math.min(COUNT_TOLERANCE, EXACT_TOLERANCE * scale) : EXACT_TOLERANCE * scale;
  const fitOf = (chosen: readonly number[]): number[] | undefined => {
    if (chosen.length === 0 || chosen.length > n - 1) return undefined;
    if (
      !solver.fit(
        chosen.map((c) => columns[c]!),
        chosen.length,
        ones,
        y,
        n,
      )
    )
      return undefined;
    return Array.from(solver.coefficients.subarray(0, chosen.length));
  };
  const misfit = (chosen: readonly number[], coefficients: readonly number[]): number => {
    let worst = 0;
    for (let i = 0; i < n; i++) {
      let value = 0;
      for (let t = 0; t < chosen.length; t++) value += coefficients[t]! * columns[chosen[t]!]![i]!;
      worst = Math.max(worst, Math.abs(value - y[i]!));
    }
    return worst;
  };
  const exact = (chosen: readonly number[]) => {
    const coefficients = fitOf(chosen);
    return coefficients && misfit(chosen, coefficients) <= tolerance ? coefficients : undefined;
  };

  /** Exact, and not an interpolation (checked by the caller: values left along every parameter). */
  const accepted = (chosen: readonly number[]) =>
    checked(chosen.map((c) => candidates[c]!)) && exact(chosen) !== undefined;
  let chosen: number[] = candidates.map((_, c) => c);
  // The whole space may interpolate (and still shrink to a checked form by elimination).
  if (chosen.length > n - 1 || !exact(chosen)) {
    // Too many candidates for the points (or dependent on them): grow from the constant, adding
    // the column that lowers the residual most, until the fit is exact.
    chosen = [0];
    let found = exact(chosen) !== undefined;
    while (!found && chosen.length < Math.min(n - 1, MAX_GREEDY_TERMS + 1)) {
      let best = -1;
      let bestRss = Infinity;
      for (let c = 1; c < candidates.length; c++) {
        if (chosen.includes(c)) continue;
        if (!fitOf([...chosen, c])) continue;
        if (solver.rss < bestRss * (1 - 1e-12)) {
          bestRss = solver.rss;
          best = c;
        }
      }
      if (best < 0) break;
      chosen.push(best);
      found = exact(chosen) !== undefined;
    }
    if (!found) chosen = [];
  }
  // Backward elimination: drop the column that matters least while the fit stays exact.
  const eliminate = (start: number[]): number[] => {
    let kept = start;
    for (let dropped = true; dropped && kept.length > 1;) {
      if (!exact(kept)) break;
      dropped = false;
      const coefficients = fitOf(kept)!;
      const order = kept
        .map((c, t) => ({
          t,
          size: Math.abs(coefficients[t]!) * columns[c]!.reduce((a, b) => Math.max(a, Math.abs(b)), 0),
        }))
        .sort((a, b) => a.size - b.size);
      for (const { t } of order) {
        const without = kept.filter((_, u) => u !== t);
        if (exact(without)) {
          kept = without;
          dropped = true;
          break;
        }
      }
    }
    return kept;
  };
  chosen = eliminate(chosen);
  if (chosen.length === 0 || !accepted(chosen)) {
    // The functions of each parameter, read off the lines along it, then all their products.
    const separable = linewiseExact(coords, y, candidates, columns, distinct, (set) => exact(set) !== undefined);
    if (separable) chosen = eliminate(separable);
  }
  if (chosen.length === 0 || !accepted(chosen)) {
    // No form, or one that interpolates: every small set of candidates, smallest first.
    const subset = smallestSubset(candidates.length, Math.min(MAX_SUBSET_TERMS, n - 2), accepted);
    if (!subset) return undefined;
    chosen = subset;
  }
  const coefficients = exact(chosen);
  if (!coefficients || n - chosen.length < 1) return undefined;
  // Integer columns (polynomials; log2 of powers of two) and counts: the exact rational solution.
  const solved = counts
    ? solveInIntegers(
        coords,
        y,
        chosen.map((c) => candidates[c]!),
      )
    : undefined;
  const fractions = solved ? undefined : coefficients.map(nearestFraction);
  const rational =
    solved !== undefined ||
    (fractions!.every((f) => f !== undefined) && misfit(chosen, fractions as number[]) <= tolerance);
  // The constant first, then the largest terms first (candidates run from low to high degree).
  const order = chosen.map((c, t) => ({ c, t })).sort((a, b) => (a.c === 0 ? -1 : b.c === 0 ? 1 : b.c - a.c));
  return {
    monomials: order.map(({ c }) => candidates[c]!),
    coefficients: order.map(({ t }) =>
      solved ? fractionValue(solved[t]!) : rational ? fractions![t]! : coefficients[t]!,
    ),
    ...(solved ? { fractions: order.map(({ t }) => solved[t]!) } : {}),
    rational,
  };
}

/**
 * The coefficients of `monomials` solved in exact rational arithmetic, where every column value is
 * an integer; undefined where one is not, or where no rational combination reproduces every count.
 */
function solveInIntegers(
  coords: readonly Float64Array[],
  y: Float64Array,
  monomials: readonly Monomial[],
): Fraction[] | undefined {
  const n = y.length;
  const columns: bigint[][] = [];
  for (const mono of monomials) {
    const values: bigint[] = [];
    for (let i = 0; i < n; i++) {
      let value = 1n;
      for (let l = 0; l < coords.length; l++) {
        const factor = integerShape(coords[l]![i]!, mono.exponents[l]!, mono.logs[l]!);
        if (factor === undefined) return undefined;
        value *= factor;
      }
      values.push(value);
    }
    columns.push(values);
  }
  return solveExactly(
    columns,
    Array.from(y, (value) => BigInt(value)),
  );
}

/**
 * The greedy growth stops at this many terms besides the constant: data no form of the space
 * reproduces (atoi's digit loop, printf) would otherwise grow to one term less than the points,
 * each step refitting every candidate (45 s for one 5×5×5 call path under load). Counts of loop
 * nests need far fewer (the 3-D stencil: 5; three parameters of degree 3: at most 16 in practice).
 */
const MAX_GREEDY_TERMS = 16;
/** The exhaustive fallback tries sets of at most this many terms besides the constant … */
const MAX_SUBSET_TERMS = 5;
/** … among at most this many candidates (C(14, ≤5) ≈ 3,500 small fits). */
const MAX_SUBSET_CANDIDATES = 15;

/**
 * Where the greedy growth misses (more monomials than values along a parameter make the whole
 * space singular, and the best single column need not be part of the answer): every set of
 * non-constant candidates, smallest first, with the constant. Only for small spaces.
 */
function smallestSubset(
  count: number,
  maxTerms: number,
  isExact: (chosen: readonly number[]) => boolean,
): number[] | undefined {
  if (count > MAX_SUBSET_CANDIDATES) return undefined;
  const chosen = [0];
  const search = (start: number, size: number): boolean => {
    if (chosen.length - 1 === size) return isExact(chosen);
    for (let c = start; c < count; c++) {
      chosen.push(c);
      if (search(c + 1, size)) return true;
      chosen.pop();
    }
    return false;
  };
  for (let size = 1; size <= maxTerms; size++) if (search(1, size)) return [...chosen];
  return undefined;
}

/** The fraction with the smallest denominator (≤ MAX_DENOMINATOR) within rounding of `value`. */
function nearestFraction(value: number): number | undefined {
  for (let den = 1; den <= MAX_DENOMINATOR; den++) {
    const num = Math.round(value * den);
    if (Math.abs(num / den - value) <= 1e-7 * Math.max(1, Math.abs(value))) return num / den;
  }
  return undefined;
}

function toTerm(mono: Monomial, coefficient: number, params: readonly string[], fraction?: Fraction): Term {
  const factors = [];
  for (let l = 0; l < params.length; l++) {
    if (mono.exponents[l] === 0 && mono.logs[l] === 0) continue;
    factors.push({ param: params[l]!, exponent: mono.exponents[l]!, log: mono.logs[l]! });
  }
  return { coefficient, factors, ...(fraction && fraction.den !== 1n ? { fraction: formatFraction(fraction) } : {}) };
}
