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
import { finishFit, getWorkspace, popcount, relativeWeights, unionOf, leaveOneOutError, MIN_SIGMA2, normalizeShared, refit, scoreFit, fitColumns, isCommonShape, rareShapes, type Workspace } from './search-fit.js';
import { localSearch } from './search-local.js';
import { maybeRefine } from './search-refine.js';
export { leaveOneOutError, popcount, relativeWeights } from './search-fit.js';

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
