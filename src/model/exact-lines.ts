// Exact closed forms read off the lines of the grid, one parameter at a time.
//
// Along a line of parameter l (every other parameter fixed), any form of the space is
// Σ_f a_f · f(x_l) over the functions f of x_l that its monomials use, plus a constant: the other
// parameters' factors are constants there. So the functions of each parameter can be found on
// their own: the smallest set S_l whose span (with the constant) holds every line along l. On a
// full grid, data whose lines along every parameter lie in those spans lie in the span of all
// products of S_1 ∪ {1}, S_2 ∪ {1}, …, and with independent functions the coefficients there are
// unique: one fit of those products says whether a form exists (the space may forbid some of
// them) and which terms it has. That is where the greedy selection fails: more monomials than
// points, and the single column that lowers the residual most need not belong to the form.
import type { Monomial } from './exact.js';
import { evalShape } from './exponents.js';
import { LeastSquares } from './linalg.js';
import { MIN_DISTINCT_VALUES } from './pointset.js';

/** Largest residual on a line, relative to the line's largest value, that counts as exact. */
const LINE_TOLERANCE = 1e-9;
/** Sets of the same (smallest) size per parameter that are tried; more would mean a degenerate grid. */
const MAX_SETS = 6;

/** A function of one parameter: x^e · log2(x)^g. */
interface Fn {
  exponent: number;
  log: number;
}

/**
 * The candidates (indices, the constant first) spanned by the smallest function set of every
 * parameter, when that span reproduces `y` (judged by `isExact`); undefined otherwise.
 */
export function linewiseExact(
  coords: readonly Float64Array[],
  y: Float64Array,
  candidates: readonly Monomial[],
  columns: readonly Float64Array[],
  distinct: readonly number[],
  isExact: (chosen: readonly number[]) => boolean,
): number[] | undefined {
  const m = coords.length;
  const n = y.length;
  const sets: Fn[][][] = [];
  for (let l = 0; l < m; l++) {
    const found = smallestSets(coords, y, l, functionsOf(candidates, l), Math.max(0, distinct[l]! - 2));
    if (!found) return undefined;
    sets.push(found);
  }
  // Every combination of the parameters' smallest sets (nearly always one).
  const pick = new Array<number>(m).fill(0);
  for (;;) {
    const chosen: number[] = [];
    candidates.forEach((mono, c) => {
      const inSets = mono.exponents.every(
        (e, l) =>
          (e === 0 && mono.logs[l] === 0) ||
          sets[l]![pick[l]!]!.some((f) => f.exponent === e && f.log === mono.logs[l]),
      );
      if (inSets) chosen.push(c);
    });
    if (chosen[0] === 0 && chosen.length <= n - 1 && chosen.every((c) => columns[c] !== undefined) && isExact(chosen))
      return chosen;
    let l = 0;
    while (l < m && ++pick[l]! >= sets[l]!.length) pick[l++] = 0;
    if (l === m) return undefined;
  }
}

/** Some set of at most `maxSize` of the candidates' functions of parameter l holds every line along l. */
export function linesExplained(
  coords: readonly Float64Array[],
  y: Float64Array,
  l: number,
  candidates: readonly Monomial[],
  maxSize: number,
): boolean {
  return smallestSets(coords, y, l, functionsOf(candidates, l), maxSize) !== undefined;
}

/** The distinct non-constant functions of parameter l among the candidates. */
function functionsOf(candidates: readonly Monomial[], l: number): Fn[] {
  const functions: Fn[] = [];
  for (const mono of candidates) {
    const fn = { exponent: mono.exponents[l]!, log: mono.logs[l]! };
    if ((fn.exponent > 0 || fn.log > 0) && !functions.some((f) => f.exponent === fn.exponent && f.log === fn.log))
      functions.push(fn);
  }
  return functions;
}

/** The lines along parameter l: points agreeing in every other parameter, with enough values of l. */
function linesAlong(coords: readonly Float64Array[], l: number): number[][] {
  const groups = new Map<string, number[]>();
  const n = coords[l]!.length;
  for (let i = 0; i < n; i++) {
    let key = '';
    for (let k = 0; k < coords.length; k++) if (k !== l) key += `${coords[k]![i]},`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(i);
  }
  return [...groups.values()].filter((group) => new Set(group.map((i) => coords[l]![i])).size >= MIN_DISTINCT_VALUES);
}

/**
 * The smallest subsets of `functions` (at most `maxSize`) whose span with the constant holds y on
 * every line along l that can check it (more distinct values than the set has functions, plus
 * one); undefined when none does.
 */
function smallestSets(
  coords: readonly Float64Array[],
  y: Float64Array,
  l: number,
  functions: readonly Fn[],
  maxSize: number,
): Fn[][] | undefined {
  const lines = linesAlong(coords, l);
  const x = coords[l]!;
  const longest = lines.reduce((a, line) => Math.max(a, line.length), 0);
  const solver = new LeastSquares(Math.max(longest, 1), maxSize + 1);
  const ones = new Float64Array(longest).fill(1);
  const values = functions.map((f) =>
    lines.map((line) => Float64Array.from(line, (i) => evalShape(x[i]!, f.exponent, f.log))),
  );
  const lineY = lines.map((line) => Float64Array.from(line, (i) => y[i]!));
  const lineValues = lines.map((line) => new Set(line.map((i) => x[i])).size);
  const holds = (set: readonly number[]): boolean => {
    for (let j = 0; j < lines.length; j++) {
      if (lineValues[j]! < set.length + 2) continue;
      const rows = lines[j]!.length;
      const ly = lineY[j]!;
      const scale = ly.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
      if (scale === 0) continue;
      const cols = [ones.subarray(0, rows), ...set.map((f) => values[f]![j]!)];
      if (!solver.fit(cols, cols.length, ones, ly, rows)) return false;
      for (let i = 0; i < rows; i++) {
        let value = 0;
        for (let c = 0; c < cols.length; c++) value += solver.coefficients[c]! * cols[c]![i]!;
        if (Math.abs(value - ly[i]!) > LINE_TOLERANCE * scale) return false;
      }
    }
    return true;
  };
  for (let size = 0; size <= Math.min(maxSize, functions.length); size++) {
    const found: Fn[][] = [];
    const set: number[] = [];
    const visit = (start: number): void => {
      if (found.length >= MAX_SETS) return;
      if (set.length === size) {
        if (holds(set)) found.push(set.map((f) => functions[f]!));
        return;
      }
      for (let f = start; f < functions.length; f++) {
        set.push(f);
        visit(f + 1);
        set.pop();
      }
    };
    visit(0);
    if (found.length > 0) return found;
  }
  return undefined;
}
