// The product stage of the model search (search.ts): every hypothesis (a structure of terms with
// one candidate shape per parameter it uses) fitted by weighted least squares, kept as flat
// records, then the noise scale they imply and their penalized scores.
import type { PointSet } from './pointset.js';
import { MIN_SIGMA2, popcount, rareShapes, unionOf, type Workspace } from './search-fit.js';
import type { SearchOptions } from './search.js';

/** Every hypothesis fitted: per record its structure (an index into `list`), its shapes (m per record), RSS and leave-one-out PRESS. */
export interface Hypotheses {
  list: number[][];
  structure: number[];
  shapes: number[];
  rss: number[];
  press: number[];
}

const structureCache = new Map<string, number[][]>();
const planCache = new WeakMap<number[][], { fitted: number[]; records: number[][] }>();

/**
 * Which structures to fit: a structure whose longer extension (same parameters, more terms) is
 * fitted anyway needs no fit of its own, since the QR of the longer one yields the RSS of every
 * prefix. `records[si]` lists the structures (by index, prefixes in order) read off fit si.
 */
function fitPlan(list: number[][]): { fitted: number[]; records: number[][] } {
  let plan = planCache.get(list);
  if (plan) return plan;
  const cover = new Array<number>(list.length).fill(-1);
  const index = new Map(list.map((masks, si) => [masks.join(','), si]));
  for (let si = 0; si < list.length; si++) {
    const masks = list[si]!;
    if (masks.length === 0) continue;
    const union = unionOf(masks);
    for (let k = 1; k < masks.length; k++) {
      const prefix = index.get(masks.slice(0, k).join(','));
      if (prefix !== undefined && cover[prefix] === -1 && unionOf(masks.slice(0, k)) === union) cover[prefix] = si;
    }
  }
  // Follow chains: the prefix of a prefix is read off the longest fit.
  const root = (si: number): number => (cover[si] === -1 ? si : root(cover[si]!));
  const records: number[][] = list.map(() => []);
  const fitted: number[] = [];
  for (let si = 0; si < list.length; si++) {
    if (cover[si] === -1) fitted.push(si);
    records[root(si)]!.push(si);
  }
  plan = { fitted, records };
  planCache.set(list, plan);
  return plan;
}

/** Every set of at most maxTerms distinct non-empty subsets of `usableMask`, the empty set first. */
export function structures(usableMask: number, maxTerms: number): number[][] {
  const key = `${usableMask}:${maxTerms}`;
  let list = structureCache.get(key);
  if (list) return list;
  const subsets: number[] = [];
  for (let mask = 1; mask <= usableMask; mask++) if ((mask & usableMask) === mask) subsets.push(mask);
  // Larger products first inside a structure: the order of columns does not change the fit.
  subsets.sort((a, b) => popcount(b) - popcount(a) || a - b);
  list = [[]];
  const choose = (start: number, current: number[]) => {
    for (let i = start; i < subsets.length; i++) {
      const next = [...current, subsets[i]!];
      list!.push(next);
      if (next.length < maxTerms) choose(i + 1, next);
    }
  };
  choose(0, []);
  structureCache.set(key, list);
  return list;
}

/**
 * Fits every structure of `list` with every combination of the candidate shapes of the
 * parameters it uses (an odometer over the candidate lists); a structure covered by a longer one
 * is read off that one's QR (fitPlan).
 */
export function fitHypotheses(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  list: number[][],
  candidates: readonly (readonly number[])[],
): Hypotheses {
  const { n, m } = ps;
  const { ls, columns, weights } = ws;
  const records: Hypotheses = { list, structure: [], shapes: [], rss: [], press: [] };
  const shapes = ws.shapes;
  const params: number[] = [];
  const odometer: number[] = [];
  const plan = fitPlan(list);
  for (const si of plan.fitted) {
    const masks = list[si]!;
    const k = Math.min(masks.length + 1, n - 1);
    if (k < 1) continue;
    const union = unionOf(masks);
    const covered = plan.records[si]!;
    params.length = 0;
    for (let l = 0; l < m; l++) if (union & (1 << l)) params.push(l);
    odometer.length = params.length;
    odometer.fill(0);
    for (;;) {
      shapes.fill(-1);
      for (let t = 0; t < params.length; t++) shapes[params[t]!] = candidates[params[t]!]![odometer[t]!]!;
      columns[0] = ps.ones;
      for (let t = 0; t < k - 1; t++) columns[t + 1] = ps.product(masks[t]!, shapes);
      ls.fit(columns, k, weights, y, n);
      for (const record of covered) {
        const terms = list[record]!.length;
        if (terms + 1 > ls.okCols || terms + 1 > n - 1) continue;
        records.structure.push(record);
        for (let l = 0; l < m; l++) records.shapes.push(shapes[l]!);
        records.rss.push(ls.prefixRss[terms]!);
        records.press.push(ls.prefixPress[terms]!);
      }
      // Next combination of candidate shapes.
      let t = 0;
      while (t < params.length) {
        odometer[t]!++;
        if (odometer[t]! < candidates[params[t]!]!.length) break;
        odometer[t] = 0;
        t++;
      }
      if (t === params.length) break;
    }
  }
  return records;
}

/**
 * The noise scale: repetitions where available, but never below what the best hypothesis leaves
 * unexplained (the grid may not contain the true model).
 */
export function noiseScale(h: Hypotheses, n: number, noiseVar: number): number {
  let fitVar = Infinity;
  for (let r = 0; r < h.rss.length; r++) {
    const dof = n - (h.list[h.structure[r]!]!.length + 1);
    if (dof >= 1) fitVar = Math.min(fitVar, h.rss[r]! / dof);
  }
  if (!Number.isFinite(fitVar)) fitVar = 0;
  return Math.max(Number.isFinite(noiseVar) ? Math.max(noiseVar, fitVar) : fitVar, MIN_SIGMA2);
}

/** What a structure costs in the score: per parameter it uses and per term. */
export function structurePenalty(masks: readonly number[], options: SearchOptions): number {
  return options.paramPenalty * popcount(unionOf(masks)) + options.termPenalty * masks.length;
}

/** The penalized score of a record: RSS (or PRESS) over σ², plus parameter, term and rare-shape penalties. */
export function hypothesisScorer(
  ps: PointSet,
  h: Hypotheses,
  sigma2: number,
  options: SearchOptions,
): (r: number) => number {
  const { m } = ps;
  const rare = rareShapes(ps.shapes);
  return (r) => {
    const masks = h.list[h.structure[r]!]!;
    let penalty = structurePenalty(masks, options);
    for (let l = 0; l < m; l++) {
      const s = h.shapes[r * m + l]!;
      if (s >= 0 && rare[s]) penalty += options.rareShapePenalty;
    }
    return (options.crossValidate ? h.press[r]! : h.rss[r]!) / sigma2 + penalty;
  };
}

/** The best-scoring record of all, and the best within `allowed` (-1 when there is none or no `allowed`). */
export function bestHypotheses(
  h: Hypotheses,
  scoreOf: (r: number) => number,
  allowed: ((r: number) => boolean) | undefined,
): { all: number; allowed: number } {
  let bestAll = -1;
  let bestAllowed = -1;
  let bestAllScore = Infinity;
  let bestAllowedScore = Infinity;
  for (let r = 0; r < h.rss.length; r++) {
    const score = scoreOf(r);
    if (score < bestAllScore) {
      bestAllScore = score;
      bestAll = r;
    }
    if (allowed && score < bestAllowedScore && allowed(r)) {
      bestAllowedScore = score;
      bestAllowed = r;
    }
  }
  return { all: bestAll, allowed: bestAllowed };
}
