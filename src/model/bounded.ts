// Shape selection under bounded noise: among the candidate shapes of a hypothesis' parameters,
// the assignment whose model stays closest to every repetition (the smallest relative half-width
// a with f(x)·(1 ± a) covering each point's smallest and largest repetition) is the likeliest.
//
// With uniform jitter of half-width a, the likelihood of a model is a^(−N) when it covers all N
// repetitions, so −2·log L = 2N·ln a, the scale on which the search's penalties live. Only each
// point's extreme repetitions matter, and the half-width is a minimax fit over those 2n rows with
// relative weights (minimax.ts). Assignments are tried in the order of their shapes' ranks from
// the least-squares stage, each warm-started from the best one's final reference: its first level
// is a lower bound, and once a good assignment is known most others end right there.
// A positive metric's constant is kept non-negative: a cost model has no negative cost at small
// inputs, and an alternative that needs one is not the cost of code.
import { MinimaxFit } from './minimax.js';
import type { PointSet } from './pointset.js';

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

  const shapes = new Int32Array(ps.m).fill(-1);
  // Rows n…2n−1 (the smallest repetitions) repeat the points' column values.
  const load = (choice: Int32Array) => {
    for (let t = 0; t < masks.length; t++) columns[t + 1] = ps.product(masks[t]!, choice);
  };
  // Assignments in the order of their shapes' single-parameter ranks, the likely winners first,
  // so that the cut-off (the best score so far) ends most of the others at their first step.
  const scale = 2 * bounds.count;
  const assignments: { choice: Int32Array; rank: number; penalty: number }[] = [];
  const odometer = new Array<number>(params.length).fill(0);
  for (;;) {
    let penalty = 0;
    let rank = 0;
    params.forEach((l, k) => {
      shapes[l] = candidates[l]![odometer[k]!]!;
      penalty += shapePenalty(l, shapes[l]!);
      rank += odometer[k]!;
    });
    assignments.push({ choice: Int32Array.from(shapes), rank, penalty });
    let k = 0;
    while (k < params.length && ++odometer[k]! === candidates[params[k]!]!.length) odometer[k++] = 0;
    if (k === params.length) break;
  }
  assignments.sort((a, b) => a.rank - b.rank);
  let best: Int32Array | null = null;
  let bestScore = Infinity;
  // Every solve starts from the best assignment's final reference: similar problems share it.
  let bestReference: ReturnType<MinimaxFit['saveReference']> | null = null;
  for (const assignment of assignments) {
    load(assignment.choice);
    if (bestReference) minimax.loadReference(bestReference);
    const stopAbove = Number.isFinite(bestScore) ? Math.exp((bestScore - assignment.penalty) / scale) : Infinity;
    const level = minimax.solve(columns, cols, weights, y, rows, stopAbove, nonNegative, bestReference !== null, n);
    if (!Number.isFinite(level)) continue;
    const score = scale * Math.log(Math.max(level, 1e-300)) + assignment.penalty;
    if (score < bestScore) {
      bestScore = score;
      best = assignment.choice;
      bestReference = minimax.saveReference();
    }
  }
  return best ? { choice: best, score: bestScore } : null;
}
