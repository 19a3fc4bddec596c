// Taint-guided experiment design (Perf-Taint §4): when no function's dependency multiplies two of
// the varied parameters, the cost is a sum of one-parameter terms, so one-parameter lines through
// a base point (every other parameter at its first value) determine the model; the full grid is
// only needed where parameters interact.
import { gridPoints, pointKey, type GridPoint, type VariedParameter } from './grid.js';
import type { TaintFacts } from './select.js';

export interface Design {
  kind: 'grid' | 'lines';
  points: GridPoint[];
  /** Why this design: the interacting function, or that there is none. */
  reason: string;
  gridPoints: number;
  /** Runs saved against the full grid (points × repetitions). */
  runsSaved: number;
}

export function gridDesign(parameters: VariedParameter[], reason = 'full grid'): Design {
  const points = gridPoints(parameters);
  return { kind: 'grid', points, reason, gridPoints: points.length, runsSaved: 0 };
}

export function autoDesign(parameters: VariedParameter[], taint: TaintFacts, repetitions: number): Design {
  const varied = new Set(parameters.map((p) => p.name));
  for (const f of taint.functions) {
    for (const monomial of f.monomials ?? []) {
      const together = [...new Set(monomial.filter((name) => varied.has(name)))];
      if (together.length > 1) {
        return gridDesign(parameters, `${f.name} multiplies ${together.join(' and ')} (${f.dependency}): full grid`);
      }
    }
  }
  const base: GridPoint = Object.fromEntries(parameters.map((p) => [p.name, p.values[0]!]));
  const seen = new Map<string, GridPoint>();
  for (const parameter of parameters) {
    for (const value of parameter.values) {
      const point = { ...base, [parameter.name]: value };
      seen.set(pointKey(point), point);
    }
  }
  const points = [...seen.values()];
  const full = gridPoints(parameters).length;
  return {
    kind: 'lines',
    points,
    gridPoints: full,
    runsSaved: (full - points.length) * repetitions,
    reason: `no function multiplies two of ${[...varied].join(', ')}: one-parameter lines through ${Object.entries(base)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  };
}
