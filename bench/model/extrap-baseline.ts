// A re-implementation of Extra-P 4's default modeler, for the benchmark only: it calibrates the
// synthetic functions against the figures measured with Extra-P itself. Following Extra-P:
// repetitions average (mean); each parameter's single-parameter model is fitted to the averages
// over the other parameters at each of its values, choosing among the 42 default building blocks
// (and the constant) by leave-one-out cross-validated SMAPE with unweighted least squares; the
// multi-parameter hypotheses f·g, f+g, f·g+f, f·g+g are fitted to all points and the lowest
// SMAPE wins; terms contributing less than 0.05% of a measurement are rejected.
import { EXTRAP_SHAPES, evalShape, type Shape } from '../../src/model/exponents.js';
import { LeastSquares } from '../../src/model/linalg.js';
import type { Series, Term } from '../../src/model/types.js';

const EPSILON = 0.0005;

function smape(actual: ArrayLike<number>, predicted: ArrayLike<number>, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const a = actual[i]!;
    const p = predicted[i]!;
    const d = Math.abs(a) + Math.abs(p);
    sum += d === 0 ? 0 : Math.abs(p - a) / (d / 2);
  }
  return (100 * sum) / n;
}

/** Chooses one parameter's building block (or none) from (x, y) pairs. */
function singleParameter(ls: LeastSquares, x: number[], y: number[]): Shape | null {
  const n = x.length;
  const mean = y.reduce((a, b) => a + b, 0) / n;
  let constantCost = 0;
  for (const v of y) constantCost += (v - mean) * (v - mean);
  if (constantCost === 0) return null;
  let best: Shape | null = null;
  let bestSmape = smape(y, new Float64Array(n).fill(mean), n);
  const ones = new Float64Array(n).fill(1);
  const weights = new Float64Array(n).fill(1);
  const yy = Float64Array.from(y);
  const trainX = new Float64Array(n - 1);
  const trainY = new Float64Array(n - 1);
  const trainOnes = new Float64Array(n - 1).fill(1);
  const logCapable = x.every((v) => v >= 1);
  for (const shape of EXTRAP_SHAPES) {
    if (shape.log > 0 && !logCapable) continue;
    const h = Float64Array.from(x, (v) => evalShape(v, shape.exponent, shape.log));
    // Leave-one-out SMAPE.
    let cvSum = 0;
    let valid = true;
    for (let leave = 0; leave < n; leave++) {
      let k = 0;
      for (let i = 0; i < n; i++) {
        if (i === leave) continue;
        trainX[k] = h[i]!;
        trainY[k] = yy[i]!;
        k++;
      }
      if (!ls.fit([trainOnes, trainX], 2, weights, trainY, n - 1)) {
        valid = false;
        break;
      }
      const predicted = ls.coefficients[0]! + ls.coefficients[1]! * h[leave]!;
      const d = Math.abs(yy[leave]!) + Math.abs(predicted);
      cvSum += d === 0 ? 0 : Math.abs(predicted - yy[leave]!) / (d / 2);
    }
    if (!valid) continue;
    const cvSmape = (100 * cvSum) / n;
    if (!ls.fit([ones, h], 2, weights, yy, n)) continue;
    const c1 = ls.coefficients[1]!;
    let contribution = 0;
    for (let i = 0; i < n; i++) contribution = Math.max(contribution, Math.abs((c1 * h[i]!) / yy[i]!));
    if (c1 === 0 || contribution < EPSILON) continue;
    if (cvSmape < bestSmape) {
      bestSmape = cvSmape;
      best = shape;
    }
  }
  return best;
}

/** The Extra-P-like model of a two-or-more-parameter series (terms, constant first). */
export function extrapBaselineModel(series: Series): Term[] {
  const m = series.params.length;
  const n = series.points.length;
  const y = Float64Array.from(series.points, (p) => p.values.reduce((a, b) => a + b, 0) / p.values.length);
  const ls = new LeastSquares(Math.max(n, 8), 8);
  const shapes: (Shape | null)[] = [];
  for (let l = 0; l < m; l++) {
    // Averages over the other parameters at each value of parameter l.
    const groups = new Map<number, number[]>();
    series.points.forEach((point, i) => {
      const key = point.coords[l]!;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(y[i]!);
    });
    const xs = [...groups.keys()].sort((a, b) => a - b);
    const ys = xs.map((x) => {
      const group = groups.get(x)!;
      return group.reduce((a, b) => a + b, 0) / group.length;
    });
    shapes.push(xs.length >= 3 ? singleParameter(ls, xs, ys) : null);
  }
  const used = shapes.map((shape, l) => (shape ? l : -1)).filter((l) => l >= 0);
  const weights = new Float64Array(n).fill(1);
  const ones = new Float64Array(n).fill(1);
  const column = (params: number[]) =>
    Float64Array.from(series.points, (point) =>
      params.reduce((v, l) => v * evalShape(point.coords[l]!, shapes[l]!.exponent, shapes[l]!.log), 1),
    );
  const toTerms = (groups: number[][], coefficients: ArrayLike<number>): Term[] => [
    { coefficient: coefficients[0]!, factors: [] },
    ...groups.map((group, t) => ({
      coefficient: coefficients[t + 1]!,
      factors: group.map((l) => ({ param: series.params[l]!, exponent: shapes[l]!.exponent, log: shapes[l]!.log })),
    })),
  ];
  if (used.length === 0) {
    return [{ coefficient: y.reduce((a, b) => a + b, 0) / n, factors: [] }];
  }
  const candidates: number[][][] = [];
  if (used.length === 1) {
    candidates.push([[used[0]!]]);
  } else {
    candidates.push(
      [used],
      used.map((l) => [l]),
    );
    if (used.length === 2) candidates.push([used, [used[0]!]], [used, [used[1]!]]);
  }
  let best: Term[] | undefined;
  let bestSmape = Infinity;
  candidates.forEach((groups, index) => {
    const columns = [ones, ...groups.map(column)];
    if (!ls.fit(columns, columns.length, weights, y, n)) return;
    const coefficients = Float64Array.from(ls.coefficients.subarray(0, columns.length));
    const predicted = new Float64Array(n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < columns.length; j++) predicted[i]! += coefficients[j]! * columns[j]![i]!;
    const cost = smape(y, predicted, n);
    let contributes = true;
    for (let t = 1; t < columns.length; t++) {
      let share = 0;
      for (let i = 0; i < n; i++) share = Math.max(share, Math.abs((coefficients[t]! * columns[t]![i]!) / y[i]!));
      if (coefficients[t] === 0 || share < EPSILON) contributes = false;
    }
    // Like Extra-P: the first hypothesis is the starting point whatever its terms contribute.
    if (index === 0 || (contributes && cost < bestSmape)) {
      best = toTerms(groups, coefficients);
      bestSmape = cost;
    }
  });
  return best ?? [{ coefficient: y.reduce((a, b) => a + b, 0) / n, factors: [] }];
}
