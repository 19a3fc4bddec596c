// The search's fitting kernel: the shared least-squares workspace, the columns of a fit with
// explicit factors, refitting, scoring, and the finishing steps (negligible terms, shared shapes)
// that every stage of searchModel (search.ts), the local search and the refinement use.
import { EXTRAP_SHAPES, sameExponent, type Shape } from './exponents.js';
import { LeastSquares } from './linalg.js';
import type { PointSet } from './pointset.js';
import type { FactorSpec, Fit, SearchOptions } from './search.js';
export const MIN_SIGMA2 = 1e-14;

export interface Workspace {
  ls: LeastSquares;
  columns: Float64Array[];
  weights: Float64Array;
  shapes: Int32Array;
}

let workspace: Workspace | undefined;

export function getWorkspace(rows: number, cols: number, m: number): Workspace {
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

/** Evaluates the columns of a fit with explicit (possibly refined or untied) factors. */
export function fitColumns(
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

export function refit(ps: PointSet, y: Float64Array, ws: Workspace, fit: Fit): boolean {
  fitColumns(ps, fit.masks, fit.factors, fit.own, ws.columns);
  if (!ws.ls.fit(ws.columns, fit.masks.length + 1, ws.weights, y, ps.n)) return false;
  fit.coefficients = Array.from(ws.ls.coefficients.subarray(0, fit.masks.length + 1));
  fit.rss = ws.ls.rss;
  return true;
}

export function scoreFit(fit: Fit, sigma2: number, options: SearchOptions): number {
  let penalty = options.paramPenalty * popcount(unionOf(fit.masks)) + options.termPenalty * fit.masks.length;
  for (const factor of fit.factors) if (factor && !isCommonShape(factor)) penalty += options.rareShapePenalty;
  for (const factor of fit.own) {
    if (!factor) continue;
    penalty += options.paramPenalty;
    if (!isCommonShape(factor)) penalty += options.rareShapePenalty;
  }
  return fit.rss / sigma2 + penalty;
}

export function isCommonShape(factor: FactorSpec): boolean {
  return EXTRAP_SHAPES.some((shape) => shape.log === factor.log && sameExponent(shape.exponent, factor.exponent));
}

export const rareCache = new WeakMap<readonly Shape[], boolean[]>();

/** Per shape of the list: outside Extra-P's default building blocks. */
export function rareShapes(shapes: readonly Shape[]): boolean[] {
  let rare = rareCache.get(shapes);
  if (!rare) {
    rare = shapes.map((shape) => !isCommonShape(shape));
    rareCache.set(shapes, rare);
  }
  return rare;
}

/** Coefficients for the selected hypothesis, negligible terms dropped. */
export function finishFit(
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
  for (let changed = true; changed && fit.masks.length > 0;) {
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
export function normalizeShared(fit: Fit): void {
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

/** Relative weights 1/|y|, floored so that zeros do not explode. */
export function relativeWeights(y: ArrayLike<number>, out: Float64Array, n: number): void {
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(y[i]!));
  const floor = Math.max(max * 1e-9, 1e-300);
  for (let i = 0; i < n; i++) out[i] = 1 / Math.max(Math.abs(y[i]!), floor);
}

export function popcount(mask: number): number {
  let count = 0;
  for (let v = mask; v; v &= v - 1) count++;
  return count;
}

export function unionOf(masks: readonly number[]): number {
  let union = 0;
  for (const mask of masks) union |= mask;
  return union;
}
