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
// 4. Drop terms that contribute almost nothing, and refine exponents off the grid where the best
//    grid model misfits the data well beyond the repetition noise.
import type { Shape } from './exponents.js';
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
}

export function defaultSearchOptions(m: number): SearchOptions {
  return {
    topK: m <= 2 ? 5 : m === 3 ? 3 : 2,
    maxTerms: m <= 3 ? 3 : 2,
    paramPenalty: 12,
    termPenalty: 6,
    refine: true,
    refineThreshold: 4,
    contentionThreshold: 25,
    minContribution: 1e-3,
  };
}

/** The taint prior for one call path: the parameter subsets (bit masks) a term may range over. */
export interface MaskPrior {
  allowed: readonly number[];
}

export interface FactorSpec {
  exponent: number;
  log: number;
}

/** A fitted hypothesis: c0 + Σ_t c_t · Π_{l ∈ masks[t]} factors[l]. */
export interface Fit {
  masks: number[];
  /** Per parameter: its factor, or null when no term uses it. */
  factors: (FactorSpec | null)[];
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
  for (let s = 0; s < shapes; s++) {
    if (!allowed[s]) {
      scores[s] = Infinity;
      continue;
    }
    const h = ps.basis(l, s);
    let total = 0;
    for (const line of lines) total += lineRss(line, h, y, weights);
    scores[s] = Number.isFinite(total) ? total : Infinity;
  }
  const order = Array.from({ length: shapes }, (_, s) => s).filter((s) => scores[s]! < Infinity);
  order.sort((a, b) => scores[a]! - scores[b]! || a - b);
  return order.slice(0, k);
}

/** Weighted RSS of y ≈ a + b·h over one line (two-pass centered sums for accuracy). */
function lineRss(line: Int32Array, h: Float64Array, y: Float64Array, weights: Float64Array): number {
  let su = 0;
  let sh = 0;
  let sy = 0;
  for (let t = 0; t < line.length; t++) {
    const i = line[t]!;
    const u = weights[i]! * weights[i]!;
    su += u;
    sh += u * h[i]!;
    sy += u * y[i]!;
  }
  const hm = sh / su;
  const ym = sy / su;
  let shh = 0;
  let shy = 0;
  let syy = 0;
  for (let t = 0; t < line.length; t++) {
    const i = line[t]!;
    const u = weights[i]! * weights[i]!;
    const dh = h[i]! - hm;
    const dy = y[i]! - ym;
    shh += u * dh * dh;
    shy += u * dh * dy;
    syy += u * dy * dy;
  }
  if (!(shh > 1e-300)) return syy;
  return Math.max(0, syy - (shy * shy) / shh);
}

const structureCache = new Map<string, number[][]>();

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
 * (NaN when there are none).
 */
export function searchModel(
  ps: PointSet,
  y: Float64Array,
  noiseVar: number,
  prior: MaskPrior | undefined,
  options: SearchOptions,
): SearchResult {
  const { n, m } = ps;
  const ws = getWorkspace(n, options.maxTerms + 1, m);
  const { ls, columns, weights } = ws;
  relativeWeights(y, weights, n);

  let usableMask = 0;
  for (let l = 0; l < m; l++) if (ps.usable[l]) usableMask |= 1 << l;

  // Nothing varies: the constant is exact.
  let constantData = true;
  for (let i = 1; i < n; i++) if (y[i] !== y[0]) constantData = false;
  if (constantData || n < 3) usableMask = 0;

  const candidates: number[][] = [];
  for (let l = 0; l < m; l++) candidates.push(usableMask & (1 << l) ? rankShapes(ps, l, y, weights, options.topK) : []);
  for (let l = 0; l < m; l++) if (candidates[l]!.length === 0) usableMask &= ~(1 << l);

  const list = structures(usableMask, options.maxTerms);
  // Records of every hypothesis fitted: structure index, shapes, rss.
  const recStructure: number[] = [];
  const recShapes: number[] = [];
  const recRss: number[] = [];
  const shapes = ws.shapes;
  const params: number[] = [];
  const odometer: number[] = [];

  for (let si = 0; si < list.length; si++) {
    const masks = list[si]!;
    const k = masks.length + 1;
    if (k > n - 1) continue;
    const union = unionOf(masks);
    params.length = 0;
    for (let l = 0; l < m; l++) if (union & (1 << l)) params.push(l);
    odometer.length = params.length;
    odometer.fill(0);
    for (;;) {
      shapes.fill(-1);
      for (let t = 0; t < params.length; t++) shapes[params[t]!] = candidates[params[t]!]![odometer[t]!]!;
      columns[0] = ps.ones;
      for (let t = 0; t < masks.length; t++) columns[t + 1] = ps.product(masks[t]!, shapes);
      if (ls.fit(columns, k, weights, y, n)) {
        recStructure.push(si);
        for (let l = 0; l < m; l++) recShapes.push(shapes[l]!);
        recRss.push(ls.rss);
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

  const scoreOf = (h: number): number => {
    const masks = list[recStructure[h]!]!;
    return recRss[h]! / sigma2 + options.paramPenalty * popcount(unionOf(masks)) + options.termPenalty * masks.length;
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
    if (allowedSet && score < bestAllowedScore && list[recStructure[h]!]!.every((mask) => allowedSet.has(mask))) {
      bestAllowedScore = score;
      bestAllowed = h;
    }
  }

  const materialize = (h: number): Fit => {
    const masks = list[recStructure[h]!]!;
    const factors: (FactorSpec | null)[] = [];
    for (let l = 0; l < m; l++) {
      const s = recShapes[h * m + l]!;
      const shape: Shape | undefined = s >= 0 ? ps.shapes[s] : undefined;
      factors.push(shape ? { exponent: shape.exponent, log: shape.log } : null);
    }
    return finishFit(ps, y, ws, { masks: [...masks], factors, coefficients: [], rss: 0, score: 0, refined: [] }, sigma2, noiseVar, options);
  };

  if (bestAll < 0) {
    // Not even the constant could be fitted (fewer than two points): the mean.
    const mean = y.reduce((a, b) => a + b, 0) / Math.max(1, n);
    const fit: Fit = { masks: [], factors: new Array(m).fill(null), coefficients: [mean], rss: 0, score: 0, refined: [] };
    return { fit, contention: [], interaction: false, sigma2 };
  }
  const unrestricted = materialize(bestAll);
  if (!prior) return { fit: unrestricted, contention: [], interaction: false, sigma2 };

  const restricted = bestAllowed >= 0 ? (bestAllowed === bestAll ? unrestricted : materialize(bestAllowed)) : materialize(0);
  const contention: number[] = [];
  let interaction = false;
  if (bestAllowed !== bestAll && restricted.score - unrestricted.score > options.contentionThreshold) {
    const allowedParams = unionOf(prior.allowed);
    const used = unionOf(unrestricted.masks);
    for (let l = 0; l < m; l++) if (used & (1 << l) && !(allowedParams & (1 << l))) contention.push(l);
    if (contention.length === 0) interaction = true;
  }
  return { fit: restricted, unrestricted, contention, interaction, sigma2 };
}

/** Evaluates the columns of a fit with explicit (possibly refined) factors. */
function fitColumns(ps: PointSet, masks: readonly number[], factors: readonly (FactorSpec | null)[], out: Float64Array[]): void {
  out[0] = ps.ones;
  for (let t = 0; t < masks.length; t++) {
    const column = new Float64Array(ps.n).fill(1);
    for (let l = 0; l < ps.m; l++) {
      if (!(masks[t]! & (1 << l))) continue;
      const factor = factors[l]!;
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

function refit(ps: PointSet, y: Float64Array, ws: Workspace, fit: Fit): boolean {
  fitColumns(ps, fit.masks, fit.factors, ws.columns);
  if (!ws.ls.fit(ws.columns, fit.masks.length + 1, ws.weights, y, ps.n)) return false;
  fit.coefficients = Array.from(ws.ls.coefficients.subarray(0, fit.masks.length + 1));
  fit.rss = ws.ls.rss;
  return true;
}

function scoreFit(fit: Fit, sigma2: number, options: SearchOptions): number {
  return fit.rss / sigma2 + options.paramPenalty * popcount(unionOf(fit.masks)) + options.termPenalty * fit.masks.length;
}

/** Coefficients for the selected hypothesis, negligible terms dropped, exponents refined. */
function finishFit(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  sigma2: number,
  noiseVar: number,
  options: SearchOptions,
): Fit {
  if (!refit(ps, y, ws, fit)) {
    fit.masks = [];
    refit(ps, y, ws, fit);
  }
  // Drop terms whose share of the modeled value is negligible everywhere.
  for (let changed = true; changed && fit.masks.length > 0; ) {
    changed = false;
    fitColumns(ps, fit.masks, fit.factors, ws.columns);
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
        changed = true;
        break;
      }
    }
    if (changed) refit(ps, y, ws, fit);
  }
  const used = unionOf(fit.masks);
  for (let l = 0; l < ps.m; l++) if (!(used & (1 << l))) fit.factors[l] = null;
  fit.score = scoreFit(fit, sigma2, options);

  if (options.refine && Number.isFinite(noiseVar) && noiseVar > 0 && fit.masks.length > 0) {
    const dof = ps.n - fit.masks.length - 1;
    if (dof > 0 && fit.rss / dof > options.refineThreshold * noiseVar) refineExponents(ps, y, ws, fit, noiseVar, options);
    fit.score = scoreFit(fit, sigma2, options);
  }
  return fit;
}

/**
 * Golden-section search of each used parameter's exponent between its neighbours on the grid,
 * coordinate by coordinate; kept when the fit improves significantly against the noise.
 */
function refineExponents(ps: PointSet, y: Float64Array, ws: Workspace, fit: Fit, noiseVar: number, options: SearchOptions): void {
  const grid = [...new Set(ps.shapes.map((shape) => shape.exponent))].sort((a, b) => a - b);
  const original = fit.factors.map((factor) => (factor ? { ...factor } : null));
  const originalRss = fit.rss;
  const originalCoefficients = fit.coefficients;
  const trial: Fit = { ...fit, factors: fit.factors.map((factor) => (factor ? { ...factor } : null)) };
  const rssAt = (l: number, exponent: number): number => {
    trial.factors[l] = { exponent, log: trial.factors[l]!.log };
    return refit(ps, y, ws, trial) ? trial.rss : Infinity;
  };
  const refinedParams = new Set<number>();
  for (let round = 0; round < 2; round++) {
    for (let l = 0; l < ps.m; l++) {
      const factor = trial.factors[l];
      if (!factor) continue;
      const position = grid.findIndex((value) => Math.abs(value - factor.exponent) < 1e-9);
      const center = factor.exponent;
      let lo = position > 0 ? grid[position - 1]! : Math.max(0, center - 0.25);
      let hi = position >= 0 && position < grid.length - 1 ? grid[position + 1]! : center + 0.5;
      if (position < 0) {
        lo = Math.max(0, center - 0.25);
        hi = center + 0.25;
      }
      const phi = (Math.sqrt(5) - 1) / 2;
      let a = lo;
      let b = hi;
      let c = b - phi * (b - a);
      let d = a + phi * (b - a);
      let fc = rssAt(l, c);
      let fd = rssAt(l, d);
      for (let iteration = 0; iteration < 40 && b - a > 1e-4; iteration++) {
        if (fc < fd) {
          b = d;
          d = c;
          fd = fc;
          c = b - phi * (b - a);
          fc = rssAt(l, c);
        } else {
          a = c;
          c = d;
          fc = fd;
          d = a + phi * (b - a);
          fd = rssAt(l, d);
        }
      }
      const best = Math.round(((a + b) / 2) * 1000) / 1000;
      const bestRss = rssAt(l, best);
      const currentRss = rssAt(l, center);
      if (bestRss < currentRss) {
        trial.factors[l] = { exponent: best, log: factor.log };
        refinedParams.add(l);
      } else {
        trial.factors[l] = { exponent: center, log: factor.log };
      }
    }
  }
  refit(ps, y, ws, trial);
  // Keep only a significant improvement: one more free parameter per refined exponent.
  const gain = (originalRss - trial.rss) / noiseVar;
  if (refinedParams.size > 0 && gain > options.termPenalty * refinedParams.size) {
    fit.factors = trial.factors;
    fit.coefficients = trial.coefficients;
    fit.rss = trial.rss;
    fit.refined = [...refinedParams].filter((l) => !gridHas(grid, fit.factors[l]!.exponent));
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
