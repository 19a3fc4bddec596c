// Exact data for the modeler benchmark: instruction counts of random loop nests. A nest is a
// chain of loops, each over one parameter with a bound x, x − k ((n−2)-style), a triangular bound
// (j < i over the same parameter as its parent: x(x+1)/2 together) or a logarithmic trip count
// log2(x); every level does some work of its own. The count is the expanded polynomial (integer
// or half-integer coefficients), measured without noise; the taint dependency is the deepest
// level's product of parameters (`t*n*n`), as the taint analysis reports a nest.
import { rng } from './synthetic.js';
import { formatModel } from '../../src/model/format.js';
import { leadingTerms } from '../../src/model/leading.js';
import type { Series, Term } from '../../src/model/types.js';

/** A polynomial: key "e0,g0;e1,g1;…" (exponent, log power per parameter) → coefficient. */
type Poly = Map<string, number>;

function keyOf(exponents: readonly number[], logs: readonly number[]): string {
  return exponents.map((e, l) => `${e},${logs[l]}`).join(';');
}

function parseKey(key: string): { exponents: number[]; logs: number[] } {
  const parts = key.split(';').map((part) => part.split(',').map(Number));
  return { exponents: parts.map((p) => p[0]!), logs: parts.map((p) => p[1]!) };
}

function multiply(a: Poly, b: Poly): Poly {
  const out: Poly = new Map();
  for (const [ka, ca] of a) {
    const pa = parseKey(ka);
    for (const [kb, cb] of b) {
      const pb = parseKey(kb);
      const key = keyOf(
        pa.exponents.map((e, l) => e + pb.exponents[l]!),
        pa.logs.map((g, l) => g + pb.logs[l]!),
      );
      out.set(key, (out.get(key) ?? 0) + ca * cb);
    }
  }
  return out;
}

function add(a: Poly, b: Poly, scale = 1): Poly {
  const out: Poly = new Map(a);
  for (const [k, c] of b) out.set(k, (out.get(k) ?? 0) + scale * c);
  return out;
}

export interface NestCase {
  name: string;
  /** The count as terms (the constant first). */
  truth: Term[];
  leading: string;
  dependency: string;
  series: Series;
}

export interface NestDesign {
  params: string[];
  values: number[][];
  /** Loop levels in a nest: at most this many, and at most 3 per parameter. */
  maxLevels: number;
  logs: boolean;
}

export const NEST_DESIGN_2: NestDesign = {
  params: ['t', 'n'],
  values: [
    [1, 2, 3, 4, 5],
    [16, 32, 64, 128, 256],
  ],
  maxLevels: 4,
  logs: true,
};
export const NEST_DESIGN_3: NestDesign = {
  params: ['a', 'b', 'c'],
  values: [
    [2, 4, 6, 8, 10],
    [2, 4, 6, 8, 10],
    [2, 4, 6, 8, 10],
  ],
  maxLevels: 4,
  logs: false,
};

/** `count` random nests over the design's parameters, with their exact counts at every point. */
export function nestCases(seed: number, count: number, design: NestDesign): NestCase[] {
  const random = rng(seed);
  const m = design.params.length;
  const zero = new Array<number>(m).fill(0);
  const constant = (c: number): Poly => new Map([[keyOf(zero, zero), c]]);
  const power = (l: number, e: number, g = 0): Poly => {
    const exponents = [...zero];
    const logs = [...zero];
    exponents[l] = e;
    logs[l] = g;
    return new Map([[keyOf(exponents, logs), 1]]);
  };
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const cases: NestCase[] = [];
  for (let i = 0; i < count; i++) {
    const levels = int(1, design.maxLevels);
    const depth = new Array<number>(m).fill(0);
    let trips: Poly = constant(1);
    let total: Poly = constant(int(0, 200));
    const names: string[] = [];
    let previous = -1;
    let previousFull = false;
    for (let level = 0; level < levels; level++) {
      const open = design.params.map((_, l) => l).filter((l) => depth[l]! < 3);
      const l = open[int(0, open.length - 1)]!;
      depth[l]!++;
      names.push(design.params[l]!);
      const kind = random();
      let bound: Poly;
      if (design.logs && kind < 0.15 && (design.values[l]![0] ?? 0) >= 1) {
        bound = power(l, 0, 1);
        previousFull = false;
      } else if (kind < 0.35 && previous === l && previousFull) {
        // j < i over the parent's i < x: together x(x+1)/2, i.e. (x+1)/2 on top of the parent's x.
        bound = add(power(l, 1), constant(1));
        bound = new Map([...bound].map(([k, c]) => [k, c / 2]));
        previousFull = false;
      } else if (kind < 0.6) {
        bound = add(power(l, 1), constant(-int(1, 2)));
        previousFull = false;
      } else {
        bound = power(l, 1);
        previousFull = true;
      }
      previous = l;
      trips = multiply(trips, bound);
      total = add(total, trips, int(1, 40));
    }
    const truth: Term[] = [...total]
      .filter(([, c]) => c !== 0)
      .map(([key, coefficient]) => {
        const { exponents, logs } = parseKey(key);
        return {
          coefficient,
          factors: design.params.flatMap((param, l) =>
            exponents[l]! > 0 || logs[l]! > 0 ? [{ param, exponent: exponents[l]!, log: logs[l]! }] : [],
          ),
        };
      });
    if (!truth.some((term) => term.factors.length === 0)) truth.unshift({ coefficient: 0, factors: [] });
    truth.sort((a, b) => a.factors.length - b.factors.length);
    const points = grid(design.values).map((coords) => {
      let value = 0;
      for (const term of truth) {
        let v = term.coefficient;
        for (const f of term.factors) {
          const x = coords[design.params.indexOf(f.param)]!;
          v *= Math.pow(x, f.exponent) * (f.log > 0 ? Math.pow(Math.log2(x), f.log) : 1);
        }
        value += v;
      }
      return { coords, values: [value, value, value] };
    });
    const name = `nest${i}`;
    cases.push({
      name,
      truth,
      leading: formatModel(leadingTerms(truth)),
      dependency: names.join('*'),
      series: { callpath: `main->${name}`, metric: 'instructions', params: [...design.params], points },
    });
  }
  return cases;
}

function grid(values: readonly number[][]): number[][] {
  let points: number[][] = [[]];
  for (const axis of values) points = points.flatMap((p) => axis.map((x) => [...p, x]));
  return points;
}

/** A taint report (dependency per function, no loops) for the nests. */
export function nestTaintReport(cases: readonly NestCase[], design: NestDesign): unknown {
  return {
    schema: 'taintlens/taint@1',
    parameters: [...design.params],
    loops: [],
    functions: cases.map((c) => ({
      name: c.name,
      params: [...new Set(c.dependency.split('*'))].sort(),
      dependency: c.dependency,
      pruned: null,
    })),
    warnings: [],
  };
}

export interface NestOutcome {
  count: number;
  /** Exact closed form with exactly the truth's terms and coefficients (1e-6 relative). */
  exact: number;
  /** The leading term(s) right, coefficient included. */
  leading: number;
  falseDependency: number;
  inexact: number;
  /**
   * Nests whose count uses as many functions of some parameter (the constant included) as the grid
   * has values of it: any values along that parameter fit, so no model can be checked, and the
   * modeler must say `inexact`.
   */
  unidentifiable: number;
}

function termKey(term: Term): string {
  return term.factors
    .map((f) => `${f.param}^${f.exponent}l${f.log}`)
    .sort()
    .join('*');
}

function sameTerms(truth: readonly Term[], model: readonly Term[]): boolean {
  const nonzero = (terms: readonly Term[]) =>
    new Map(terms.filter((t) => t.coefficient !== 0).map((t) => [termKey(t), t.coefficient]));
  const a = nonzero(truth);
  const b = nonzero(model);
  if (a.size !== b.size) return false;
  for (const [key, c] of a) {
    const d = b.get(key);
    if (d === undefined || Math.abs(c - d) > 1e-6 * Math.max(1, Math.abs(c))) return false;
  }
  return true;
}

/** Scores models (by call path) against the nests' true counts. */
export function scoreNests(
  cases: readonly NestCase[],
  models: ReadonlyMap<string, { terms: Term[]; flags: string[]; exact: boolean; leading?: string }>,
): NestOutcome {
  const outcome: NestOutcome = { count: 0, exact: 0, leading: 0, falseDependency: 0, inexact: 0, unidentifiable: 0 };
  for (const c of cases) {
    const model = models.get(c.series.callpath);
    if (!model) throw new Error(`no model for ${c.series.callpath}`);
    outcome.count++;
    if (model.exact && sameTerms(c.truth, model.terms)) outcome.exact++;
    if (model.leading === c.leading) outcome.leading++;
    const truthParams = new Set(c.truth.flatMap((t) => t.factors.map((f) => f.param)));
    if (model.terms.some((t) => t.factors.some((f) => !truthParams.has(f.param)))) outcome.falseDependency++;
    if (model.flags.includes('inexact')) outcome.inexact++;
    if (unidentifiable(c)) outcome.unidentifiable++;
  }
  return outcome;
}

/** The count uses at least as many functions of one parameter (with the constant) as it has values. */
export function unidentifiable(c: NestCase): boolean {
  return c.series.params.some((param, l) => {
    const values = new Set(c.series.points.map((point) => point.coords[l]!)).size;
    const functions = new Set(
      c.truth.map(
        (term) =>
          term.factors
            .filter((f) => f.param === param)
            .map((f) => `${f.exponent},${f.log}`)
            .join('') || '0,0',
      ),
    );
    functions.add('0,0');
    return functions.size >= values;
  });
}

/**
 * The nests' run time: each count times a cost per instruction, with ±noise uniform jitter per
 * repetition (metric `time`, `reps` repetitions), under the same call paths as the counts.
 */
export function nestTimeSeries(cases: readonly NestCase[], noise: number, seed: number, reps = 5): Series[] {
  const random = rng(seed);
  return cases.map((c) => ({
    ...c.series,
    metric: 'time',
    points: c.series.points.map((point) => ({
      coords: [...point.coords],
      values: Array.from({ length: reps }, () => 1e-6 * point.values[0]! * (1 + noise * (2 * random() - 1))),
    })),
  }));
}

export interface NestTimeOutcome {
  count: number;
  /** The model's leading terms grow like the count's (same factors; coefficients aside). */
  leading: number;
  /** The model uses a parameter the count does not. */
  falseDependency: number;
  /** Fitted with the counts' term set (`counts-shaped`). */
  countsShaped: number;
}

/** Scores time models (by call path) by their leading terms against the nests' counts. */
export function scoreNestTimes(
  cases: readonly NestCase[],
  models: ReadonlyMap<string, { terms: Term[]; flags: string[] }>,
): NestTimeOutcome {
  const outcome: NestTimeOutcome = { count: 0, leading: 0, falseDependency: 0, countsShaped: 0 };
  const growth = (terms: readonly Term[]) => new Set(leadingTerms(terms).map(termKey));
  for (const c of cases) {
    const model = models.get(c.series.callpath);
    if (!model) throw new Error(`no time model for ${c.series.callpath}`);
    outcome.count++;
    const truth = growth(c.truth);
    const found = growth(model.terms);
    if (truth.size === found.size && [...truth].every((key) => found.has(key))) outcome.leading++;
    const truthParams = new Set(c.truth.flatMap((t) => t.factors.map((f) => f.param)));
    if (model.terms.some((t) => t.factors.some((f) => !truthParams.has(f.param)))) outcome.falseDependency++;
    if (model.flags.some((flag) => flag.startsWith('counts-shaped'))) outcome.countsShaped++;
  }
  return outcome;
}
