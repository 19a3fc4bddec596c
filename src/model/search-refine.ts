// Exponents refined off the grid where the grid is too coarse for the data (searchModel's
// refinement stage): a scan in steps of 1/24, then golden-section search, kept only when the fit
// improves significantly against the repetition noise.
import { sameExponent } from './exponents.js';
import type { PointSet } from './pointset.js';
import type { Fit, SearchOptions } from './search.js';
import { refit, scoreFit, MIN_SIGMA2, type Workspace } from './search-fit.js';
/** Refines exponents when the model misfits well beyond the repetition noise. */
export function maybeRefine(
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
export function refineExponents(
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
        if (value + (log > best.log ? noiseVar : 0) < best.rss - (log < best.log ? noiseVar : 0))
          best = { exponent, log, rss: value };
      }
      trial.factors[l] = { exponent: best.exponent, log: best.log };
    }
  }
  refit(ps, y, ws, trial);
  const changed = ps.coords
    .map((_, l) => l)
    .filter(
      (l) =>
        trial.factors[l] &&
        (!sameExponent(trial.factors[l]!.exponent, original[l]!.exponent) ||
          trial.factors[l]!.log !== original[l]!.log),
    );
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

export function gridHas(grid: readonly number[], value: number): boolean {
  return grid.some((g) => Math.abs(g - value) < 1e-9);
}
