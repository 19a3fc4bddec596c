// Shape selection under bounded noise: among the candidate shapes of a hypothesis' parameters,
// the assignment whose model stays closest to every repetition (the smallest relative half-width
// a with f(x)·(1 ± a) covering each point's smallest and largest repetition) is the likeliest.
//
// With uniform jitter of half-width a, the likelihood of a model is a^(−N) when it covers all N
// repetitions, so −2·log L = 2N·ln a, the scale on which the search's penalties live. Only each
// point's extreme repetitions matter, and the half-width is a minimax fit over those 2n rows with
// relative weights (minimax.ts). Assignments are tried in the order of their shapes' ranks from
// the least-squares stage; the references of the best ones found so far bound every other one from
// below without a solve, and the rest start warm from the best reference. Single-parameter moves
// to neighbouring exponents follow, from the best.
// A positive metric's constant is kept non-negative: a cost model has no negative cost at small
// inputs, and an alternative that needs one is not the cost of code.
import { MinimaxFit } from './minimax.js';
import type { PointSet } from './pointset.js';

/** How many of the latest best assignments' references bound the others. */
const KEPT_REFERENCES = 3;
/** Rounds of single-parameter moves to neighbouring shapes after the candidate grid. */
const COORDINATE_ROUNDS = 2;
/** How far (in the exponent) those moves reach: neighbouring exponents are what least squares confuses. */
const NEIGHBOURHOOD = 0.5;

/** Each point's smallest and largest repetition, and how many repetitions there are in all. */
export interface RepetitionBounds {
  low: Float64Array;
  high: Float64Array;
  count: number;
}

export function repetitionBounds(points: readonly { values: readonly number[] }[]): RepetitionBounds {
  const low = new Float64Array(points.length);
  const high = new Float64Array(points.length);
  let count = 0;
  points.forEach((point, i) => {
    let min = Infinity;
    let max = -Infinity;
    for (const v of point.values) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    low[i] = min;
    high[i] = max;
    count += point.values.length;
  });
  return { low, high, count };
}

interface Workspace {
  rows: number;
  minimax: MinimaxFit;
  y: Float64Array;
  weights: Float64Array;
  columns: Float64Array[];
}

let workspace: Workspace | undefined;

function getWorkspace(rows: number, cols: number): Workspace {
  if (!workspace || workspace.rows < rows || workspace.columns.length < cols) {
    const maxRows = Math.max(rows, workspace?.rows ?? 0);
    const maxCols = Math.max(cols, workspace?.columns.length ?? 0, 6);
    workspace = {
      rows: maxRows,
      minimax: new MinimaxFit(maxRows, maxCols),
      y: new Float64Array(maxRows),
      weights: new Float64Array(maxRows),
      columns: new Array<Float64Array>(maxCols),
    };
  }
  return workspace;
}

/**
 * The shapes (per parameter, −1 where unused) that let the hypothesis `masks` cover the repetitions
 * most tightly, among `candidates[l]` for each parameter it uses, scored 2N·ln(level) + the rare
 * shapes' penalty; null when no assignment could be fitted.
 */
export function boundedShapes(
  ps: PointSet,
  masks: readonly number[],
  candidates: readonly (readonly number[])[],
  bounds: RepetitionBounds,
  shapePenalty: (l: number, s: number) => number,
  shapeOk: (l: number, s: number) => boolean = () => true,
): { choice: Int32Array; score: number } | null {
  const n = ps.n;
  const rows = 2 * n;
  const cols = masks.length + 1;
  const ws = getWorkspace(rows, cols);
  const { minimax, y, weights, columns } = ws;
  for (let i = 0; i < n; i++) {
    y[i] = bounds.high[i]!;
    y[n + i] = bounds.low[i]!;
    weights[i] = weights[n + i] = 2 / Math.max(Math.abs(bounds.high[i]! + bounds.low[i]!), 1e-300);
  }
  columns[0] = ps.ones;
  let positive = true;
  for (let i = 0; i < n; i++) if (!(bounds.low[i]! > 0)) positive = false;
  const nonNegative = positive ? 1 : 0;

  let union = 0;
  for (const mask of masks) union |= mask;
  const params: number[] = [];
  for (let l = 0; l < ps.m; l++) if (union & (1 << l)) params.push(l);
  if (params.some((l) => (candidates[l]?.length ?? 0) === 0)) return null;

  // Rows n…2n−1 (the smallest repetitions) repeat the points' column values.
  const load = (choice: Int32Array) => {
    for (let t = 0; t < masks.length; t++) columns[t + 1] = ps.product(masks[t]!, choice);
  };
  // Assignments in the order of their shapes' single-parameter ranks, the likely winners first,
  // so that the cut-off (the best score so far) ends most of the others at their first step.
  // Stored flat (one row of m shape indices each) and ordered by a counting sort on the rank sum.
  const m = ps.m;
  let count = 1;
  let maxRank = 0;
  for (const l of params) {
    count *= candidates[l]!.length;
    maxRank += candidates[l]!.length - 1;
  }
  const choices = new Int32Array(count * m).fill(-1);
  const penalties = new Float64Array(count);
  const ranks = new Int32Array(count);
  const odometer = new Array<number>(params.length).fill(0);
  for (let c = 0; c < count; c++) {
    let penalty = 0;
    let rank = 0;
    for (let k = 0; k < params.length; k++) {
      const l = params[k]!;
      const shape = candidates[l]![odometer[k]!]!;
      choices[c * m + l] = shape;
      penalty += shapePenalty(l, shape);
      rank += odometer[k]!;
    }
    penalties[c] = penalty;
    ranks[c] = rank;
    for (let k = 0; k < params.length && ++odometer[k]! === candidates[params[k]!]!.length; k++) odometer[k] = 0;
  }
  const start = new Int32Array(maxRank + 2);
  for (let c = 0; c < count; c++) start[ranks[c]! + 1]!++;
  for (let r = 0; r <= maxRank; r++) start[r + 1]! += start[r]!;
  const order = new Int32Array(count);
  for (let c = 0; c < count; c++) order[start[ranks[c]!]!++] = c;

  const scale = 2 * bounds.count;
  let best: Int32Array | null = null;
  let bestScore = Infinity;
  // The final references of the last few best assignments: each one's level over its own rows
  // bounds any assignment's level from below, and the newest starts every solve warm.
  const references: ReturnType<MinimaxFit['saveReference']>[] = [];
  /** Scores one assignment; true when it is the new best. */
  const evaluate = (choice: Int32Array, penalty: number): boolean => {
    load(choice);
    const stopAbove = Number.isFinite(bestScore) ? Math.exp((bestScore - penalty) / scale) : Infinity;
    let bound = 0;
    for (const reference of references) {
      bound = Math.max(bound, minimax.referenceBound(columns, cols, weights, y, reference, n));
      if (bound > stopAbove) return false;
    }
    if (references.length > 0) minimax.loadReference(references[references.length - 1]!);
    const level = minimax.solve(columns, cols, weights, y, rows, stopAbove, nonNegative, references.length > 0, n);
    if (!Number.isFinite(level)) return false;
    const score = scale * Math.log(Math.max(level, 1e-300)) + penalty;
    if (!(score < bestScore)) return false;
    bestScore = score;
    best = Int32Array.from(choice);
    references.push(minimax.saveReference());
    if (references.length > KEPT_REFERENCES) references.shift();
    return true;
  };
  for (let o = 0; o < count; o++) {
    const c = order[o]!;
    evaluate(choices.subarray(c * m, c * m + m), penalties[c]!);
  }
  // Then the neighbouring shapes of one parameter at a time, from the best: a true shape that the
  // least-squares stage ranked below the candidates is still found (most end at their bound).
  for (let round = 0; round < COORDINATE_ROUNDS && best; round++) {
    let improved = false;
    for (const l of params) {
      const trial = new Int32Array(m);
      for (let shape = 0; shape < ps.shapes.length; shape++) {
        // `best` moves as moves succeed; each move starts from the current best.
        const from = best as Int32Array;
        if (shape === from[l] || !ps.allowedShape[l]![shape] || !shapeOk(l, shape)) continue;
        if (Math.abs(ps.shapes[shape]!.exponent - ps.shapes[from[l]!]!.exponent) > NEIGHBOURHOOD) continue;
        trial.set(from);
        trial[l] = shape;
        let penalty = 0;
        for (const k of params) penalty += shapePenalty(k, trial[k]!);
        if (evaluate(trial, penalty)) improved = true;
      }
    }
    if (!improved) break;
  }
  return best ? { choice: best, score: bestScore } : null;
}
