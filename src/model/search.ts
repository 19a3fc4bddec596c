// The model search: which PMNF hypothesis explains one call path's measurements best.
//
// 1. Per parameter, rank every factor shape x^i·log2(x)^j by how well it explains the variation
//    along that parameter. Unlike Extra-P, which fits one line of points (the other parameters at
//    their smallest values) or their averages, every line along the parameter is fitted with its
//    own intercept and slope: any PMNF model with one shape per parameter is affine in that shape
//    once the other parameters are fixed, so all points inform the choice and nothing else is
//    assumed. Residuals are relative (weights 1/y), matching multiplicative measurement noise.
// 2. Combine the best `topK` shapes of each parameter into multi-parameter hypotheses: every set
//    of at most `maxTerms` terms, a term being a product over a subset of the parameters (for two
//    parameters: p, n, p·n, p+n, p·n+p, p·n+n, p·n+p+n). Fit each by weighted least squares.
// 3. Select by a penalized likelihood: RSS/σ² + paramPenalty·(parameters used) + termPenalty·
//    (terms), with σ² the relative noise of the aggregated values, estimated from the repetitions
//    and raised to the best hypothesis' residual variance when no hypothesis fits down to the
//    noise. Using a parameter costs more than adding a term, because its shape was picked as the
//    best of ~60 candidates and so fits noise better than one fixed extra column would.
// 4. Drop terms that contribute almost nothing. Where the best grid model misfits the data well
//    beyond the repetition noise: a local search beyond one shape per parameter (p·n + n^2), then
//    refinement of exponents off the grid.
// Hypotheses that differ only in trailing terms share one QR factorization (prefix RSS), and all
// columns come from the PointSet's caches, so a two-parameter call path costs 86 small QRs.
import { EXTRAP_SHAPES, loopDepth, sameExponent, type Shape } from './exponents.js';
import { boundedShapes, type RepetitionBounds } from './bounded.js';
import { LeastSquares } from './linalg.js';
import type { PointSet } from './pointset.js';

export interface SearchOptions {
  /** Candidate shapes kept per parameter after the single-parameter stage. */
  topK: number;
  /** Largest number of non-constant terms in a hypothesis. */
  maxTerms: number;
  /** Score cost of each parameter a hypothesis uses. */
  paramPenalty: number;
  /** Score cost of each non-constant term. */
  termPenalty: number;
  /** Refine exponents off the grid when the data demand it. */
  refine: boolean;
  /** Lack of fit (residual variance over noise variance) that triggers refinement. */
  refineThreshold: number;
  /** Score advantage the unrestricted model needs over the prior's for a contention flag. */
  contentionThreshold: number;
  /** Terms whose share of the modeled value stays below this at every point are dropped. */
  minContribution: number;
  /**
   * Score cost of each parameter whose shape is outside Extra-P's 42 default building blocks
   * (e.g. p^(5/3)·log2(p)^2): such complexities are rare in code, so they must fit clearly better.
   */
  rareShapePenalty: number;
  /** Where the grid misfits: local search beyond one shape per parameter (p·n + n^2). */
  localSearch: boolean;
  /**
   * Score hypotheses by their leave-one-out error (PRESS, from the hat diagonal of the same QR)
   * instead of the residual sum of squares. Measured 0–2 points less exact on the benchmark.
   */
  crossValidate: boolean;
  /**
   * With bounds (bounded noise): shapes per parameter in the least-squares products, which then
   * only rank the structures, since the shapes are chosen again by the bounds.
   */
  boundedProductTopK: number;
  /** With bounds: candidate shapes per parameter for the bounded choice. */
  boundedTopK: number;
  /** With bounds: how many of the best structures by least squares compete on the bounded likelihood. */
  boundedStructures: number;
  /**
   * With bounds: the structure penalties (paramPenalty, termPenalty) are multiplied by this on the
   * bounded likelihood's scale, where a free coefficient pulls the extremes in more than it lowers
   * a residual sum of squares (calibrated on the benchmark's held-in seed: 1 lets spurious terms in,
   * 2 and 3 are equal).
   */
  boundedPenaltyScale: number;
}

export function defaultSearchOptions(m: number): SearchOptions {
  return {
    topK: m <= 2 ? 5 : m === 3 ? 3 : 2,
    boundedProductTopK: m <= 3 ? 3 : 2,
    maxTerms: m <= 3 ? 3 : 2,
    paramPenalty: 16,
    termPenalty: 8,
    refine: true,
    refineThreshold: 4,
    contentionThreshold: 25,
    minContribution: 1e-3,
    rareShapePenalty: 4,
    localSearch: true,
    crossValidate: false,
    boundedTopK: m <= 2 ? 6 : m === 3 ? 4 : 3,
    boundedStructures: 2,
    boundedPenaltyScale: 2,
  };
}

/** The taint prior for one call path: the parameter subsets (bit masks) a term may range over. */
export interface MaskPrior {
  allowed: readonly number[];
  /**
   * Per parameter, the loop depth over it (0: no bound): the prior's model keeps to shapes
   * x^e·log2^g(x) with ⌈e⌉ + g ≤ that depth, since each loop level multiplies by at most x or log2 x.
   */
  depths?: readonly number[];
}

export interface FactorSpec {
  exponent: number;
  log: number;
}

/**
 * A fitted hypothesis: c0 + Σ_t c_t · Π_{l ∈ masks[t]} factors[l], except that a single-parameter
 * term may have its own shape (`own[t]`), e.g. p·n + n^2.
 */
export interface Fit {
  masks: number[];
  /** Per parameter: its factor, or null when no term uses it. */
  factors: (FactorSpec | null)[];
  /** Per term: its own factor when it is a single-parameter term untied from the shared shape. */
  own: (FactorSpec | null)[];
  /** The constant first, then one coefficient per mask. */
  coefficients: number[];
  /** Weighted (relative) residual sum of squares. */
  rss: number;
  /** Penalized score; lower is better. */
  score: number;
  /** Parameters whose exponent was refined off the grid. */
  refined: number[];
}

export interface SearchResult {
  /** The selected model (within the prior, if any). */
  fit: Fit;
  /** The best model ignoring the prior; only when a prior was given. */
  unrestricted?: Fit;
  /** Parameters the measurements demand although the prior excludes them. */
  contention: number[];
  /** The measurements demand a combination of allowed parameters the prior excludes. */
  interaction: boolean;
  /** Parameters the measurements demand to grow faster than their loop depth allows. */
  beyondNest?: number[];
  /** Noise variance used for the selection (relative). */
  sigma2: number;
}

const MIN_SIGMA2 = 1e-14;

interface Workspace {
  ls: LeastSquares;
  columns: Float64Array[];
  weights: Float64Array;
  shapes: Int32Array;
}

let workspace: Workspace | undefined;

function getWorkspace(rows: number, cols: number, m: number): Workspace {
  if (!workspace || workspace.ls.maxRows < rows || workspace.ls.maxCols < cols || workspace.shapes.length < m) {
    const maxRows = Math.max(rows, workspace?.ls.maxRows ?? 0);
    const maxCols = Math.max(cols, workspace?.ls.maxCols ?? 0, 8);
    workspace = {
      ls: new LeastSquares(maxRows, maxCols),
      columns: new Array<Float64Array>(maxCols),
      weights: new Float64Array(maxRows),
      shapes: new Int32Array(Math.max(m, 8)),
    };
  }
  return workspace;
}

/** Relative weights 1/|y|, floored so that zeros do not explode. */
export function relativeWeights(y: ArrayLike<number>, out: Float64Array, n: number): void {
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(y[i]!));
  const floor = Math.max(max * 1e-9, 1e-300);
  for (let i = 0; i < n; i++) out[i] = 1 / Math.max(Math.abs(y[i]!), floor);
}

/**
 * Ranks the shapes of parameter l: each line along l is fitted as a + b·shape with its own a and b;
 * the shapes' scores are the summed relative RSS. Returns the `k` best shape indices.
 */
export function rankShapes(ps: PointSet, l: number, y: Float64Array, weights: Float64Array, k: number): number[] {
  const shapes = ps.shapes.length;
  const scores = new Float64Array(shapes);
  const lines = ps.lines(l);
  const allowed = ps.allowedShape[l]!;
  // Per line, what does not depend on the shape: Σu, the weighted mean of y and Σu(y − ȳ)².
  const lineSum = new Float64Array(lines.length);
  const lineMean = new Float64Array(lines.length);
  const lineSyy = new Float64Array(lines.length);
  lines.forEach((line, j) => {
    let su = 0;
    let sy = 0;
    for (let t = 0; t < line.length; t++) {
      const i = line[t]!;
      const u = weights[i]! * weights[i]!;
      su += u;
      sy += u * y[i]!;
    }
    const ym = sy / su;
    let syy = 0;
    for (let t = 0; t < line.length; t++) {
      const i = line[t]!;
      const d = y[i]! - ym;
      syy += weights[i]! * weights[i]! * d * d;
    }
    lineSum[j] = su;
    lineMean[j] = ym;
    lineSyy[j] = syy;
  });
  for (let s = 0; s < shapes; s++) {
    if (!allowed[s]) {
      scores[s] = Infinity;
      continue;
    }
    const h = ps.basis(l, s);
    let total = 0;
    for (let j = 0; j < lines.length; j++) {
      // Weighted RSS of y ≈ a + b·h over the line, from centered sums (two passes for accuracy).
      const line = lines[j]!;
      let sh = 0;
      for (let t = 0; t < line.length; t++) {
        const i = line[t]!;
        sh += weights[i]! * weights[i]! * h[i]!;
      }
      const hm = sh / lineSum[j]!;
      const ym = lineMean[j]!;
      let shh = 0;
      let shy = 0;
      for (let t = 0; t < line.length; t++) {
        const i = line[t]!;
        const u = weights[i]! * weights[i]!;
        const dh = h[i]! - hm;
        shh += u * dh * dh;
        shy += u * dh * (y[i]! - ym);
      }
      const syy = lineSyy[j]!;
      total += shh > 1e-300 ? Math.max(0, syy - (shy * shy) / shh) : syy;
    }
    scores[s] = Number.isFinite(total) ? total : Infinity;
  }
  const order = Array.from({ length: shapes }, (_, s) => s).filter((s) => scores[s]! < Infinity);
  order.sort((a, b) => scores[a]! - scores[b]! || a - b);
  return order.slice(0, k);
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

export function popcount(mask: number): number {
  let count = 0;
  for (let v = mask; v; v &= v - 1) count++;
  return count;
}

function unionOf(masks: readonly number[]): number {
  let union = 0;
  for (const mask of masks) union |= mask;
  return union;
}

/**
 * Searches the hypothesis space for the aggregated values `y` at the points of `ps`.
 * `noiseVar` is the relative variance of the aggregated values estimated from the repetitions
 * (NaN when there are none). With `bounds` (for bounded noise), the shapes of the selected
 * hypotheses are chosen by how tightly they cover every repetition (bounded.ts) instead of by
 * the least-squares fit to the aggregated values; the term structure is the search's either way.
 */
export function searchModel(
  ps: PointSet,
  y: Float64Array,
  noiseVar: number,
  prior: MaskPrior | undefined,
  options: SearchOptions,
  bounds?: RepetitionBounds,
): SearchResult {
  const { n, m } = ps;
  const ws = getWorkspace(n, options.maxTerms + 2, m);
  const { ls, columns, weights } = ws;
  relativeWeights(y, weights, n);

  let usableMask = 0;
  for (let l = 0; l < m; l++) if (ps.usable[l]) usableMask |= 1 << l;

  // Nothing varies: the constant is exact.
  let constantData = true;
  for (let i = 1; i < n; i++) if (y[i] !== y[0]) constantData = false;
  if (constantData && n > 0) {
    const fit: Fit = { masks: [], factors: new Array(m).fill(null), own: [], coefficients: [y[0]!], rss: 0, score: 0, refined: [] };
    return { fit, ...(prior ? { unrestricted: fit } : {}), contention: [], interaction: false, sigma2: MIN_SIGMA2 };
  }
  if (n < 3) usableMask = 0;

  // With bounds, more shapes go on to the bounded choice than into the hypotheses' product.
  // With loop depths, the prior's model draws on the best shapes within them, so those join the
  // product too (the unrestricted model keeps the best shapes of all).
  const depths = prior?.depths?.some((d) => d > 0) ? prior.depths : undefined;
  const withinDepth = (l: number, s: number): boolean => {
    const depth = depths?.[l] ?? 0;
    return depth <= 0 || loopDepth(ps.shapes[s]!.exponent, ps.shapes[s]!.log) <= depth;
  };
  const ranked: number[][] = [];
  const rankedWithin: number[][] = [];
  const productTopK = bounds ? options.boundedProductTopK : options.topK;
  const keep = bounds ? Math.max(productTopK, options.boundedTopK) : productTopK;
  for (let l = 0; l < m; l++) {
    const all = usableMask & (1 << l) ? rankShapes(ps, l, y, weights, depths ? ps.shapes.length : keep) : [];
    ranked.push(all.slice(0, keep));
    rankedWithin.push(depths ? all.filter((s) => withinDepth(l, s)).slice(0, keep) : ranked[l]!);
  }
  const candidates = ranked.map((list, l) => [...new Set([...list.slice(0, productTopK), ...rankedWithin[l]!.slice(0, productTopK)])]);
  for (let l = 0; l < m; l++) if (candidates[l]!.length === 0) usableMask &= ~(1 << l);
  const boundedCandidates = bounds ? ranked.map((list) => list.slice(0, options.boundedTopK)) : undefined;
  const boundedWithin = bounds ? rankedWithin.map((list) => list.slice(0, options.boundedTopK)) : undefined;
  const sameBoundedCandidates = boundedWithin?.every((list, l) => list.length === boundedCandidates![l]!.length && list.every((s, k) => s === boundedCandidates![l]![k])) ?? false;
  /** The record's shapes keep to the loop depths. */
  const recordWithin = (h: number): boolean => {
    if (!depths) return true;
    for (let l = 0; l < m; l++) {
      const s = recShapes[h * m + l]!;
      if (s >= 0 && !withinDepth(l, s)) return false;
    }
    return true;
  };

  const list = structures(usableMask, options.maxTerms);
  // Records of every hypothesis fitted: structure index, shapes, rss.
  const recStructure: number[] = [];
  const recShapes: number[] = [];
  const recRss: number[] = [];
  const recPress: number[] = [];
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
        recStructure.push(record);
        for (let l = 0; l < m; l++) recShapes.push(shapes[l]!);
        recRss.push(ls.prefixRss[terms]!);
        recPress.push(ls.prefixPress[terms]!);
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

  // The noise scale: repetitions where available, but never below what the best hypothesis
  // leaves unexplained (the grid may not contain the true model).
  let fitVar = Infinity;
  for (let h = 0; h < recRss.length; h++) {
    const dof = n - (list[recStructure[h]!]!.length + 1);
    if (dof >= 1) fitVar = Math.min(fitVar, recRss[h]! / dof);
  }
  if (!Number.isFinite(fitVar)) fitVar = 0;
  const sigma2 = Math.max(Number.isFinite(noiseVar) ? Math.max(noiseVar, fitVar) : fitVar, MIN_SIGMA2);

  const rare = rareShapes(ps.shapes);
  const scoreOf = (h: number): number => {
    const masks = list[recStructure[h]!]!;
    let penalty = options.paramPenalty * popcount(unionOf(masks)) + options.termPenalty * masks.length;
    for (let l = 0; l < m; l++) {
      const s = recShapes[h * m + l]!;
      if (s >= 0 && rare[s]) penalty += options.rareShapePenalty;
    }
    return (options.crossValidate ? recPress[h]! : recRss[h]!) / sigma2 + penalty;
  };
  const allowedSet = prior ? new Set(prior.allowed) : undefined;
  let bestAll = -1;
  let bestAllowed = -1;
  let bestAllScore = Infinity;
  let bestAllowedScore = Infinity;
  for (let h = 0; h < recRss.length; h++) {
    const score = scoreOf(h);
    if (score < bestAllScore) {
      bestAllScore = score;
      bestAll = h;
    }
    if (allowedSet && score < bestAllowedScore && list[recStructure[h]!]!.every((mask) => allowedSet.has(mask)) && recordWithin(h)) {
      bestAllowedScore = score;
      bestAllowed = h;
    }
  }

  const shapePenalty = (_: number, s: number) => (rare[s] ? options.rareShapePenalty : 0);
  // Under bounded noise: the few best structures by least squares, each with its best-covering
  // shapes, compete on the bounded likelihood plus the same structure penalties.
  const boundedCaches = [new Map<number, ReturnType<typeof boundedShapes>>(), new Map<number, ReturnType<typeof boundedShapes>>()];
  const boundedPick = (allowed: ((masks: readonly number[]) => boolean) | undefined): { h: number; choice: Int32Array | null } => {
    const bestOf = new Map<number, { h: number; score: number }>();
    const restricted = allowed !== undefined && depths !== undefined;
    const boundedCache = boundedCaches[restricted ? 1 : 0]!;
    for (let h = 0; h < recRss.length; h++) {
      const si = recStructure[h]!;
      if (allowed && !allowed(list[si]!)) continue;
      if (restricted && !recordWithin(h)) continue;
      const score = scoreOf(h);
      const current = bestOf.get(si);
      if (!current || score < current.score) bestOf.set(si, { h, score });
    }
    const ranked = [...bestOf.values()].sort((a, b) => a.score - b.score).slice(0, options.boundedStructures);
    let pick = { h: ranked[0]?.h ?? -1, choice: null as Int32Array | null };
    let pickScore = Infinity;
    for (const { h } of ranked) {
      const masks = list[recStructure[h]!]!;
      const structurePenalty = options.boundedPenaltyScale * (options.paramPenalty * popcount(unionOf(masks)) + options.termPenalty * masks.length);
      let result = boundedCache.get(recStructure[h]!);
      // The unrestricted choice for the structure, when it keeps to the depths, is the restricted one too.
      const shared = restricted ? boundedCaches[0]!.get(recStructure[h]!) : undefined;
      if (result === undefined && shared && sameBoundedCandidates && [...shared.choice].every((s, l) => s < 0 || withinDepth(l, s))) result = shared;
      if (result === undefined) {
        result = restricted
          ? boundedShapes(ps, masks, boundedWithin!, bounds!, shapePenalty, withinDepth)
          : boundedShapes(ps, masks, boundedCandidates!, bounds!, shapePenalty);
        boundedCache.set(recStructure[h]!, result);
      }
      if (!result) continue;
      if (result.score + structurePenalty < pickScore) {
        pickScore = result.score + structurePenalty;
        pick = { h, choice: result.choice };
      }
    }
    return pick;
  };

  const materialize = (h: number, allowedMasks: readonly number[], preset: Int32Array | null, shapeOk?: (l: number, s: number) => boolean): Fit => {
    const masks = list[recStructure[h]!]!;
    const indices = preset ? Int32Array.from(preset) : Int32Array.from(recShapes.slice(h * m, h * m + m));
    const factors = Array.from(indices, (s) => (s >= 0 ? { exponent: ps.shapes[s]!.exponent, log: ps.shapes[s]!.log } : null));
    const fit = finishFit(ps, y, ws, { masks: [...masks], factors, own: masks.map(() => null), coefficients: [], rss: 0, score: 0, refined: [] }, sigma2, options);
    if (options.localSearch) {
      for (let l = 0; l < m; l++) if (!fit.factors[l]) indices[l] = -1;
      localSearch(ps, y, ws, fit, indices, allowedMasks, sigma2, noiseVar, options, shapeOk);
    }
    return fit;
  };
  const refine = (fit: Fit, maxExponent?: (l: number, log: number) => number): Fit => {
    maybeRefine(ps, y, ws, fit, sigma2, noiseVar, options, maxExponent);
    return fit;
  };

  if (bestAll < 0) {
    // Not even the constant could be fitted (fewer than two points): the mean.
    const mean = y.reduce((a, b) => a + b, 0) / Math.max(1, n);
    const fit: Fit = { masks: [], factors: new Array(m).fill(null), own: [], coefficients: [mean], rss: 0, score: 0, refined: [] };
    return { fit, contention: [], interaction: false, sigma2 };
  }
  const allMasks: number[] = [];
  for (let mask = 1; mask <= usableMask; mask++) if ((mask & usableMask) === mask) allMasks.push(mask);
  const pickAll = boundedCandidates ? boundedPick(undefined) : { h: bestAll, choice: null };
  const unrestricted = refine(materialize(pickAll.h, allMasks, pickAll.choice));
  if (!prior) return { fit: unrestricted, contention: [], interaction: false, sigma2 };

  const pickAllowed = boundedCandidates
    ? boundedPick((masks) => masks.every((mask) => allowedSet!.has(mask)))
    : { h: bestAllowed, choice: null };
  if (pickAllowed.h === pickAll.h) return { fit: unrestricted, unrestricted, contention: [], interaction: false, sigma2 };
  const restricted = materialize(
    pickAllowed.h >= 0 ? pickAllowed.h : 0,
    allMasks.filter((mask) => prior.allowed.includes(mask)),
    pickAllowed.choice,
    depths ? withinDepth : undefined,
  );
  const contention: number[] = [];
  const beyondNest: number[] = [];
  let interaction = false;
  if (restricted.score - unrestricted.score > options.contentionThreshold) {
    const allowedParams = unionOf(prior.allowed);
    const used = unionOf(unrestricted.masks);
    for (let l = 0; l < m; l++) if (used & (1 << l) && !(allowedParams & (1 << l))) contention.push(l);
    const combines = unrestricted.masks.some((mask) => !prior.allowed.includes(mask));
    if (contention.length === 0 && combines) interaction = true;
    if (contention.length === 0 && !combines && depths) {
      for (let l = 0; l < m; l++) {
        const factor = unrestricted.factors[l];
        if (factor && depths[l]! > 0 && loopDepth(factor.exponent, factor.log) > depths[l]!) beyondNest.push(l);
      }
    }
    if (contention.length === 0 && !combines && beyondNest.length === 0) interaction = true;
  } else {
    // The prior's model explains the data: only then may its exponents be refined (refining a
    // model the measurements contradict would only bend it towards the missing term).
    refine(restricted, depths ? (l, log) => (depths[l]! > 0 ? depths[l]! - log : Infinity) : undefined);
  }
  return { fit: restricted, unrestricted, contention, interaction, ...(beyondNest.length > 0 ? { beyondNest } : {}), sigma2 };
}

/** Evaluates the columns of a fit with explicit (possibly refined or untied) factors. */
function fitColumns(
  ps: PointSet,
  masks: readonly number[],
  factors: readonly (FactorSpec | null)[],
  own: readonly (FactorSpec | null)[],
  out: Float64Array[],
): void {
  out[0] = ps.ones;
  for (let t = 0; t < masks.length; t++) {
    const column = new Float64Array(ps.n).fill(1);
    for (let l = 0; l < ps.m; l++) {
      if (!(masks[t]! & (1 << l))) continue;
      const factor = own[t] ?? factors[l]!;
      const x = ps.coords[l]!;
      for (let i = 0; i < ps.n; i++) {
        const xi = x[i]!;
        let v = factor.exponent === 0 ? 1 : Math.pow(xi, factor.exponent);
        if (factor.log > 0) v *= Math.pow(xi > 0 ? Math.log2(xi) : 0, factor.log);
        column[i]! *= v;
      }
    }
    out[t + 1] = column;
  }
}

/**
 * Leave-one-out relative RMS error of a fit, in %: √(PRESS/n) with PRESS from the hat diagonal
 * (each point predicted by the model refitted without it). NaN when undefined.
 */
export function leaveOneOutError(ps: PointSet, y: Float64Array, fit: Fit): number {
  const ws = getWorkspace(ps.n, fit.masks.length + 2, ps.m);
  relativeWeights(y, ws.weights, ps.n);
  if (!refit(ps, y, ws, fit) || ps.n === 0) return NaN;
  const press = ws.ls.prefixPress[fit.masks.length]!;
  return Number.isFinite(press) ? 100 * Math.sqrt(press / ps.n) : NaN;
}

function refit(ps: PointSet, y: Float64Array, ws: Workspace, fit: Fit): boolean {
  fitColumns(ps, fit.masks, fit.factors, fit.own, ws.columns);
  if (!ws.ls.fit(ws.columns, fit.masks.length + 1, ws.weights, y, ps.n)) return false;
  fit.coefficients = Array.from(ws.ls.coefficients.subarray(0, fit.masks.length + 1));
  fit.rss = ws.ls.rss;
  return true;
}

function scoreFit(fit: Fit, sigma2: number, options: SearchOptions): number {
  let penalty = options.paramPenalty * popcount(unionOf(fit.masks)) + options.termPenalty * fit.masks.length;
  for (const factor of fit.factors) if (factor && !isCommonShape(factor)) penalty += options.rareShapePenalty;
  for (const factor of fit.own) {
    if (!factor) continue;
    penalty += options.paramPenalty;
    if (!isCommonShape(factor)) penalty += options.rareShapePenalty;
  }
  return fit.rss / sigma2 + penalty;
}

function isCommonShape(factor: FactorSpec): boolean {
  return EXTRAP_SHAPES.some((shape) => shape.log === factor.log && sameExponent(shape.exponent, factor.exponent));
}

const rareCache = new WeakMap<readonly Shape[], boolean[]>();

/** Per shape of the list: outside Extra-P's default building blocks. */
function rareShapes(shapes: readonly Shape[]): boolean[] {
  let rare = rareCache.get(shapes);
  if (!rare) {
    rare = shapes.map((shape) => !isCommonShape(shape));
    rareCache.set(shapes, rare);
  }
  return rare;
}

/** Coefficients for the selected hypothesis, negligible terms dropped. */
function finishFit(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  sigma2: number,
  options: SearchOptions,
): Fit {
  if (!refit(ps, y, ws, fit)) {
    fit.masks = [];
    refit(ps, y, ws, fit);
  }
  // Drop terms whose share of the modeled value is negligible everywhere.
  for (let changed = true; changed && fit.masks.length > 0; ) {
    changed = false;
    fitColumns(ps, fit.masks, fit.factors, fit.own, ws.columns);
    for (let t = 0; t < fit.masks.length; t++) {
      const column = ws.columns[t + 1]!;
      let share = 0;
      for (let i = 0; i < ps.n; i++) {
        let modeled = 0;
        for (let u = 0; u <= fit.masks.length; u++) modeled += fit.coefficients[u]! * ws.columns[u]![i]!;
        share = Math.max(share, Math.abs(fit.coefficients[t + 1]! * column[i]!) / Math.max(Math.abs(modeled), 1e-300));
      }
      if (share < options.minContribution) {
        fit.masks.splice(t, 1);
        fit.own.splice(t, 1);
        changed = true;
        break;
      }
    }
    if (changed) refit(ps, y, ws, fit);
  }
  normalizeShared(fit);
  fit.score = scoreFit(fit, sigma2, options);
  return fit;
}

/** Clears shared factors nothing uses; an untied term alone in its parameter becomes the shared one. */
function normalizeShared(fit: Fit): void {
  for (let l = 0; l < fit.factors.length; l++) {
    const bit = 1 << l;
    const sharedUsers = fit.masks.filter((mask, t) => mask & bit && !fit.own[t]).length;
    if (sharedUsers > 0) continue;
    const untied = fit.masks.findIndex((mask, t) => mask === bit && fit.own[t]);
    if (untied >= 0) {
      fit.factors[l] = fit.own[untied]!;
      fit.own[untied] = null;
    } else {
      fit.factors[l] = null;
    }
  }
}

/**
 * When the best grid hypothesis misfits well beyond the repetition noise, its structure may be
 * outside the tied space (one shape per parameter): p·n + n^2 has two shapes of n. A greedy local
 * search then tries, from the selected model: another shared shape for a parameter; a shape of its
 * own for a single-parameter term (or tying it back); dropping a term; adding an allowed term with
 * any shape. Each extra shape costs as much as an extra parameter. Scores are judged against the
 * repetition noise where known (σ² may have been raised to the tied models' misfit, which would
 * hide exactly what this explains). Works on the point set's cached columns.
 */
function localSearch(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  shared: Int32Array,
  allowedMasks: readonly number[],
  sigma2: number,
  noiseVar: number,
  options: SearchOptions,
  shapeOk: (l: number, s: number) => boolean = () => true,
): void {
  // Identical repetitions (noise 0): any misfit is beyond the noise, so the search always runs,
  // and moves are judged against the tied models' misfit (against the zero noise, every extra
  // term would pay for itself).
  const exactData = noiseVar === 0;
  const scale = !exactData && Number.isFinite(noiseVar) && noiseVar > 0 ? noiseVar : sigma2;
  const dof = ps.n - fit.masks.length - 1;
  if (dof <= 0 || (!exactData && fit.rss / dof <= options.refineThreshold * scale)) return;
  const rare = rareShapes(ps.shapes);
  const { ls, columns, weights } = ws;
  const maxTerms = Math.min(options.maxTerms + 1, ps.n - 2);
  let masks = [...fit.masks];
  let own: Int32Array = new Int32Array(masks.length).fill(-1);
  const shapes = Int32Array.from(shared);
  const scoreOf = (termMasks: readonly number[], termOwn: Int32Array, sharedShapes: Int32Array): number => {
    columns[0] = ps.ones;
    let union = 0;
    let penalty = options.termPenalty * termMasks.length;
    for (let t = 0; t < termMasks.length; t++) {
      const mask = termMasks[t]!;
      const o = termOwn[t]!;
      if (o >= 0) {
        columns[t + 1] = ps.basis(Math.log2(mask), o);
        penalty += options.paramPenalty + (rare[o] ? options.rareShapePenalty : 0);
      } else {
        columns[t + 1] = ps.product(mask, sharedShapes);
        union |= mask;
      }
    }
    for (let l = 0; l < ps.m; l++) {
      if (!(union & (1 << l))) continue;
      penalty += options.paramPenalty + (rare[sharedShapes[l]!] ? options.rareShapePenalty : 0);
    }
    // A parameter only in untied terms still counts once as a parameter (its first own shape).
    for (let t = 0; t < termMasks.length; t++) {
      if (termOwn[t]! >= 0 && !(union & termMasks[t]!)) {
        penalty -= options.paramPenalty;
        union |= termMasks[t]!;
      }
    }
    return ls.fit(columns, termMasks.length + 1, weights, y, ps.n) ? ls.rss / scale + penalty : Infinity;
  };
  let best = scoreOf(masks, own, shapes);
  const start = best;
  for (let iteration = 0; iteration < 12; iteration++) {
    let bestMove: { masks: number[]; own: Int32Array; shapes: Int32Array } | undefined;
    const consider = (candidateMasks: number[], candidateOwn: Int32Array, candidateShapes: Int32Array) => {
      const score = scoreOf(candidateMasks, candidateOwn, candidateShapes);
      if (score < best - 1e-9) {
        best = score;
        bestMove = { masks: candidateMasks, own: Int32Array.from(candidateOwn), shapes: Int32Array.from(candidateShapes) };
      }
    };
    const sharedUse = (l: number) => masks.some((mask, t) => mask & (1 << l) && own[t]! < 0);
    // Another shared shape for a parameter.
    for (let l = 0; l < ps.m; l++) {
      if (!sharedUse(l)) continue;
      const keep = shapes[l]!;
      for (let s = 0; s < ps.shapes.length; s++) {
        if (s === keep || !ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
        shapes[l] = s;
        consider(masks, own, shapes);
      }
      shapes[l] = keep;
    }
    // A single-parameter term's own shape, or tied back.
    for (let t = 0; t < masks.length; t++) {
      if (popcount(masks[t]!) !== 1) continue;
      const l = Math.log2(masks[t]!);
      const keep = own[t]!;
      for (let s = -1; s < ps.shapes.length; s++) {
        if (s === keep || (s >= 0 && (!ps.allowedShape[l]![s] || !shapeOk(l, s) || s === shapes[l])) || (s < 0 && shapes[l]! < 0)) continue;
        own[t] = s;
        consider(masks, own, shapes);
      }
      own[t] = keep;
    }
    // A tied single-parameter term keeps its shape while the other terms of its parameter move.
    for (let t = 0; t < masks.length; t++) {
      if (popcount(masks[t]!) !== 1 || own[t]! >= 0) continue;
      const l = Math.log2(masks[t]!);
      if (!masks.some((mask, u) => u !== t && mask & (1 << l) && own[u]! < 0)) continue;
      const keep = shapes[l]!;
      own[t] = keep;
      for (let s = 0; s < ps.shapes.length; s++) {
        if (s === keep || !ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
        shapes[l] = s;
        consider(masks, own, shapes);
      }
      shapes[l] = keep;
      own[t] = -1;
    }
    // Drop a term.
    for (let t = 0; t < masks.length; t++) {
      consider(
        masks.filter((_, u) => u !== t),
        Int32Array.from(own).filter((_, u) => u !== t),
        shapes,
      );
    }
    // Add an allowed term.
    if (masks.length < maxTerms) {
      for (const mask of allowedMasks) {
        // On exact data (identical repetitions, where no closed form was exact), a second term
        // over the same parameter with a shape of its own (n^3 + n^2). On noisy data that extra
        // freedom fits noise rather than refining an exponent, so there each subset appears once.
        if (masks.includes(mask) && (!exactData || popcount(mask) > 1)) continue;
        let ready = true;
        for (let l = 0; l < ps.m; l++) if (mask & (1 << l) && popcount(mask) > 1 && shapes[l]! < 0) ready = false;
        if (!ready) continue;
        const nextMasks = [...masks, mask];
        const nextOwn = Int32Array.from([...own, -1]);
        if (popcount(mask) > 1) {
          consider(nextMasks, nextOwn, shapes);
          continue;
        }
        const l = Math.log2(mask);
        for (let s = 0; s < ps.shapes.length; s++) {
          if (!ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
          if (shapes[l]! >= 0) {
            if (masks.some((existing, t) => existing === mask && (own[t]! >= 0 ? own[t] : shapes[l]) === s)) continue;
            nextOwn[masks.length] = s === shapes[l] ? -1 : s;
            consider(nextMasks, nextOwn, shapes);
          } else {
            shapes[l] = s;
            nextOwn[masks.length] = -1;
            consider(nextMasks, nextOwn, shapes);
            shapes[l] = -1;
          }
        }
      }
    }
    if (!bestMove) break;
    const move: { masks: number[]; own: Int32Array; shapes: Int32Array } = bestMove;
    masks = move.masks;
    own = move.own;
    shapes.set(move.shapes);
  }
  if (!(best < start)) return;
  fit.masks = masks;
  fit.own = Array.from(own, (o) => (o >= 0 ? { exponent: ps.shapes[o]!.exponent, log: ps.shapes[o]!.log } : null));
  fit.factors = Array.from(shapes, (s, l) =>
    s >= 0 && masks.some((mask, t) => mask & (1 << l) && own[t]! < 0) ? { exponent: ps.shapes[s]!.exponent, log: ps.shapes[s]!.log } : null,
  );
  refit(ps, y, ws, fit);
  normalizeShared(fit);
  fit.score = scoreFit(fit, sigma2, options);
}

/** Refines exponents when the model misfits well beyond the repetition noise. */
function maybeRefine(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  sigma2: number,
  noiseVar: number,
  options: SearchOptions,
  maxExponent?: (l: number, log: number) => number,
): void {
  if (!options.refine || !Number.isFinite(noiseVar) || fit.masks.length === 0) return;
  // Identical repetitions (noise 0): any misfit beyond rounding is beyond the noise.
  const noise = Math.max(noiseVar, MIN_SIGMA2);
  const dof = ps.n - fit.masks.length - 1;
  if (dof > 0 && fit.rss / dof > options.refineThreshold * noise) {
    refineExponents(ps, y, ws, fit, noise, options, maxExponent);
    fit.score = scoreFit(fit, sigma2, options);
  }
}

/**
 * Where the grid is too coarse: for each parameter of the model, and each power of the logarithm,
 * scan the exponent in steps of 1/24 over [0, 3.5], then golden-section search around the best
 * step; coordinate by coordinate, twice. Kept only when the fit improves significantly against the
 * repetition noise (one more free parameter per refined exponent).
 */
function refineExponents(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  noiseVar: number,
  options: SearchOptions,
  maxExponentOf: (l: number, log: number) => number = () => Infinity,
): void {
  const grid = [...new Set(ps.shapes.map((shape) => shape.exponent))].sort((a, b) => a - b);
  const logs = [...new Set(ps.shapes.map((shape) => shape.log))].sort((a, b) => a - b);
  const maxExponent = Math.max(...grid) + 0.5;
  const step = 1 / 24;
  const original = fit.factors.map((factor) => (factor ? { ...factor } : null));
  const originalRss = fit.rss;
  const originalCoefficients = fit.coefficients;
  const trial: Fit = { ...fit, factors: fit.factors.map((factor) => (factor ? { ...factor } : null)) };
  const rssAt = (l: number, exponent: number, log: number): number => {
    if (exponent === 0 && log === 0) return Infinity;
    trial.factors[l] = { exponent, log };
    return refit(ps, y, ws, trial) ? trial.rss : Infinity;
  };
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let round = 0; round < 2; round++) {
    for (let l = 0; l < ps.m; l++) {
      const current = trial.factors[l];
      if (!current) continue;
      const allowed = ps.allowedShape[l]!;
      let best = { exponent: current.exponent, log: current.log, rss: rssAt(l, current.exponent, current.log) };
      for (const log of logs) {
        if (log > 0 && !ps.shapes.some((shape, s) => shape.log === log && allowed[s])) continue;
        let bestStep = 0;
        let bestStepRss = Infinity;
        const top = Math.min(maxExponent, maxExponentOf(l, log));
        if (top < 0) continue;
        for (let e = 0; e <= top + 1e-9; e += step) {
          const value = rssAt(l, e, log);
          if (value < bestStepRss) {
            bestStepRss = value;
            bestStep = e;
          }
        }
        let a = Math.max(0, bestStep - step);
        let b = Math.min(bestStep + step, top);
        let c = b - phi * (b - a);
        let d = a + phi * (b - a);
        let fc = rssAt(l, c, log);
        let fd = rssAt(l, d, log);
        for (let iteration = 0; iteration < 30 && b - a > 1e-4; iteration++) {
          if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = rssAt(l, c, log);
          } else {
            a = c;
            c = d;
            fc = fd;
            d = a + phi * (b - a);
            fd = rssAt(l, d, log);
          }
        }
        const exponent = Math.round(((a + b) / 2) * 1000) / 1000;
        const value = rssAt(l, exponent, log);
        // A logarithm more must pay for itself: prefer fewer logs unless clearly better.
        if (value + (log > best.log ? noiseVar : 0) < best.rss - (log < best.log ? noiseVar : 0)) best = { exponent, log, rss: value };
      }
      trial.factors[l] = { exponent: best.exponent, log: best.log };
    }
  }
  refit(ps, y, ws, trial);
  const changed = ps.coords
    .map((_, l) => l)
    .filter((l) => trial.factors[l] && (!sameExponent(trial.factors[l]!.exponent, original[l]!.exponent) || trial.factors[l]!.log !== original[l]!.log));
  const gain = (originalRss - trial.rss) / noiseVar;
  // A refinement that turns a growing term into a shrinking one is fitting something else.
  const signsKept = originalCoefficients.every((c, t) => t === 0 || Math.sign(c) === Math.sign(trial.coefficients[t]!));
  if (changed.length > 0 && signsKept && gain > options.termPenalty * changed.length) {
    fit.factors = trial.factors;
    fit.coefficients = trial.coefficients;
    fit.rss = trial.rss;
    fit.refined = changed.filter((l) => !gridHas(grid, fit.factors[l]!.exponent));
  } else {
    fit.factors = original;
    fit.coefficients = originalCoefficients;
    fit.rss = originalRss;
    refit(ps, y, ws, fit);
  }
}

function gridHas(grid: readonly number[], value: number): boolean {
  return grid.some((g) => Math.abs(g - value) < 1e-9);
}
