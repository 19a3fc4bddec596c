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
// searchModel runs the stages: rankCandidates (1, here), fitHypotheses and the scores (2-3,
// search-hypotheses.ts), the bounded choice (search-bounded-choice.ts), finishing and refinement
// (4, search-fit/local/refine.ts), and the checks against a prior (search-prior.ts).
import { loopDepth } from './exponents.js';
import type { RepetitionBounds } from './bounded.js';
import { BoundedChooser, type BoundedCandidates } from './search-bounded-choice.js';
import { bestHypotheses, fitHypotheses, hypothesisScorer, noiseScale, structures } from './search-hypotheses.js';
import { priorVerdict } from './search-prior.js';
import type { PointSet } from './pointset.js';
import { finishFit, getWorkspace, relativeWeights, MIN_SIGMA2 } from './search-fit.js';
import { localSearch } from './search-local.js';
import { maybeRefine } from './search-refine.js';
export { leaveOneOutError, popcount, relativeWeights } from './search-fit.js';
export { structures } from './search-hypotheses.js';

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
  relativeWeights(y, ws.weights, n);

  // Nothing varies: the constant is exact.
  let constantData = true;
  for (let i = 1; i < n; i++) if (y[i] !== y[0]) constantData = false;
  if (constantData && n > 0) {
    const fit: Fit = {
      masks: [],
      factors: new Array(m).fill(null),
      own: [],
      coefficients: [y[0]!],
      rss: 0,
      score: 0,
      refined: [],
    };
    return { fit, ...(prior ? { unrestricted: fit } : {}), contention: [], interaction: false, sigma2: MIN_SIGMA2 };
  }

  const depths = prior?.depths?.some((d) => d > 0) ? prior.depths : undefined;
  const withinDepth = (l: number, s: number): boolean => {
    const depth = depths?.[l] ?? 0;
    return depth <= 0 || loopDepth(ps.shapes[s]!.exponent, ps.shapes[s]!.log) <= depth;
  };
  const { usableMask, product, bounded } = rankCandidates(
    ps,
    y,
    ws.weights,
    depths ? withinDepth : undefined,
    options,
    bounds !== undefined,
  );
  const records = fitHypotheses(ps, y, ws, structures(usableMask, options.maxTerms), product);
  /** The record's shapes keep to the loop depths. */
  const recordWithin = (h: number): boolean => {
    for (let l = 0; l < m; l++) {
      const s = records.shapes[h * m + l]!;
      if (s >= 0 && !withinDepth(l, s)) return false;
    }
    return true;
  };
  const sigma2 = noiseScale(records, n, noiseVar);
  const scoreOf = hypothesisScorer(ps, records, sigma2, options);
  const allowedSet = prior ? new Set(prior.allowed) : undefined;
  const withinPrior = (masks: readonly number[]) => masks.every((mask) => allowedSet!.has(mask));
  const best = bestHypotheses(
    records,
    scoreOf,
    allowedSet && ((h) => withinPrior(records.list[records.structure[h]!]!) && (!depths || recordWithin(h))),
  );
  if (best.all < 0) {
    // Not even the constant could be fitted (fewer than two points): the mean.
    const mean = y.reduce((a, b) => a + b, 0) / Math.max(1, n);
    const fit: Fit = {
      masks: [],
      factors: new Array(m).fill(null),
      own: [],
      coefficients: [mean],
      rss: 0,
      score: 0,
      refined: [],
    };
    return { fit, contention: [], interaction: false, sigma2 };
  }

  const chooser =
    bounded &&
    new BoundedChooser(ps, records, scoreOf, bounded, bounds!, options, depths ? recordWithin : undefined, withinDepth);
  /** The fit of record h (or of its bounded choice of shapes), completed and searched locally. */
  const materialize = (
    h: number,
    allowedMasks: readonly number[],
    preset: Int32Array | null,
    shapeOk?: (l: number, s: number) => boolean,
  ): Fit => {
    const masks = records.list[records.structure[h]!]!;
    const indices = preset ? Int32Array.from(preset) : Int32Array.from(records.shapes.slice(h * m, h * m + m));
    const factors = Array.from(indices, (s) =>
      s >= 0 ? { exponent: ps.shapes[s]!.exponent, log: ps.shapes[s]!.log } : null,
    );
    const fit = finishFit(
      ps,
      y,
      ws,
      { masks: [...masks], factors, own: masks.map(() => null), coefficients: [], rss: 0, score: 0, refined: [] },
      sigma2,
      options,
    );
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

  const allMasks: number[] = [];
  for (let mask = 1; mask <= usableMask; mask++) if ((mask & usableMask) === mask) allMasks.push(mask);
  const pickAll = chooser ? chooser.pick(undefined) : { h: best.all, choice: null };
  const unrestricted = refine(materialize(pickAll.h, allMasks, pickAll.choice));
  if (!prior) return { fit: unrestricted, contention: [], interaction: false, sigma2 };

  const pickAllowed = chooser ? chooser.pick(withinPrior) : { h: best.allowed, choice: null };
  if (pickAllowed.h === pickAll.h)
    return { fit: unrestricted, unrestricted, contention: [], interaction: false, sigma2 };
  const restricted = materialize(
    pickAllowed.h >= 0 ? pickAllowed.h : 0,
    allMasks.filter((mask) => prior.allowed.includes(mask)),
    pickAllowed.choice,
    depths ? withinDepth : undefined,
  );
  const verdict = priorVerdict(restricted, unrestricted, prior, depths, m, options);
  // The prior's model explains the data: only then may its exponents be refined (refining a
  // model the measurements contradict would only bend it towards the missing term).
  if (verdict.explains)
    refine(restricted, depths ? (l, log) => (depths[l]! > 0 ? depths[l]! - log : Infinity) : undefined);
  const { contention, interaction, beyondNest } = verdict;
  return {
    fit: restricted,
    unrestricted,
    contention,
    interaction,
    ...(beyondNest.length > 0 ? { beyondNest } : {}),
    sigma2,
  };
}

/** Per parameter, the shapes the search combines into products, and those the bounded choice may take. */
interface ShapeCandidates {
  /** The parameters that vary enough to be fitted and have candidates. */
  usableMask: number;
  product: number[][];
  bounded: BoundedCandidates | undefined;
}

/**
 * Ranks each usable parameter's shapes (rankShapes). With bounds, more shapes go on to the bounded
 * choice than into the hypotheses' product. With loop depths (`withinDepth`), the prior's model
 * draws on the best shapes within them, so those join the product too (the unrestricted model
 * keeps the best shapes of all).
 */
function rankCandidates(
  ps: PointSet,
  y: Float64Array,
  weights: Float64Array,
  withinDepth: ((l: number, s: number) => boolean) | undefined,
  options: SearchOptions,
  withBounds: boolean,
): ShapeCandidates {
  const { n, m } = ps;
  let usableMask = 0;
  if (n >= 3) for (let l = 0; l < m; l++) if (ps.usable[l]) usableMask |= 1 << l;
  const ranked: number[][] = [];
  const rankedWithin: number[][] = [];
  const productTopK = withBounds ? options.boundedProductTopK : options.topK;
  const keep = withBounds ? Math.max(productTopK, options.boundedTopK) : productTopK;
  for (let l = 0; l < m; l++) {
    const all = usableMask & (1 << l) ? rankShapes(ps, l, y, weights, withinDepth ? ps.shapes.length : keep) : [];
    ranked.push(all.slice(0, keep));
    rankedWithin.push(withinDepth ? all.filter((s) => withinDepth(l, s)).slice(0, keep) : ranked[l]!);
  }
  const product = ranked.map((list, l) => [
    ...new Set([...list.slice(0, productTopK), ...rankedWithin[l]!.slice(0, productTopK)]),
  ]);
  for (let l = 0; l < m; l++) if (product[l]!.length === 0) usableMask &= ~(1 << l);
  if (!withBounds) return { usableMask, product, bounded: undefined };
  const all = ranked.map((list) => list.slice(0, options.boundedTopK));
  const within = rankedWithin.map((list) => list.slice(0, options.boundedTopK));
  const same = within.every((list, l) => list.length === all[l]!.length && list.every((s, k) => s === all[l]![k]));
  return { usableMask, product, bounded: { all, within, same } };
}
