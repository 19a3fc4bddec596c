import { describe, expect, it } from 'vitest';
import { MinimaxFit } from '../../src/model/minimax.js';
import { rng } from '../../bench/model/synthetic.js';

/**
 * The discrete Chebyshev value is the largest over all (q+1)-row references of the reference's own
 * value |λ·b| / |λ|₁, λ spanning the null space of the reference's rows (de la Vallée Poussin).
 */
function bruteForce(rowsA: number[][], b: number[]): number {
  const q = rowsA[0]!.length;
  let best = 0;
  const choose = (start: number, picked: number[]) => {
    if (picked.length === q + 1) {
      // Null vector of the q×(q+1) matrix by cofactors (Cramer): λ_i = (−1)^i det(minor without column i).
      const lambda = picked.map((_, i) => {
        const minor = picked.filter((__, j) => j !== i).map((k) => rowsA[k]!);
        return (i % 2 === 0 ? 1 : -1) * det(minor[0]!.map((_, r) => minor.map((row) => row[r]!)));
      });
      const norm = lambda.reduce((s, v) => s + Math.abs(v), 0);
      if (norm > 1e-12) best = Math.max(best, Math.abs(lambda.reduce((s, v, i) => s + v * b[picked[i]!]!, 0)) / norm);
      return;
    }
    for (let k = start; k < b.length; k++) choose(k + 1, [...picked, k]);
  };
  choose(0, []);
  return best;
}

function det(m: number[][]): number {
  if (m.length === 1) return m[0]![0]!;
  let sum = 0;
  for (let c = 0; c < m.length; c++) {
    const minor = m.slice(1).map((row) => row.filter((_, j) => j !== c));
    sum += (c % 2 === 0 ? 1 : -1) * m[0]![c]! * det(minor);
  }
  return sum;
}

/** q columns x^(k·step) over `rows` random x in [1, 10], data from `f`, random weights. */
function randomProblem(random: () => number, q: number, rows: number, step: number, f: (x: number) => number) {
  const x = Array.from({ length: rows }, () => 1 + 9 * random());
  const columns = Array.from({ length: q }, (_, j) => Float64Array.from(x, (v) => Math.pow(v, j * step)));
  const y = Float64Array.from(x, f);
  const weights = Float64Array.from(x, () => 0.5 + random());
  return { columns, y, weights };
}

describe('minimax (Chebyshev) fit', () => {
  it('equals the largest reference value, on random problems of 1–4 columns', () => {
    const random = rng(11);
    const solver = new MinimaxFit(64, 6);
    for (let trial = 0; trial < 60; trial++) {
      const q = 1 + (trial % 4);
      const rows = q + 2 + Math.floor(random() * 6);
      const { columns, y, weights } = randomProblem(random, q, rows, 0.7, (v) => 3 + 2 * v + random() - 0.5);
      const value = solver.solve(columns, q, weights, y, rows);
      const rowsA = Array.from(y, (_, k) => columns.map((column) => weights[k]! * column[k]!));
      const b = Array.from(y, (v, k) => weights[k]! * v);
      expect(value).toBeCloseTo(bruteForce(rowsA, b), 9);
    }
  });

  it('returns coefficients that attain the value, and an exact fit costs nothing', () => {
    const solver = new MinimaxFit(32, 4);
    const x = Float64Array.from({ length: 20 }, (_, i) => i + 1);
    const columns = [new Float64Array(20).fill(1), Float64Array.from(x, (v) => v * v)];
    const weights = new Float64Array(20).fill(1);
    const exact = Float64Array.from(x, (v) => 2 + 0.5 * v * v);
    expect(solver.solve(columns, 2, weights, exact, 20)).toBeLessThan(1e-9);
    expect(solver.coefficients[0]).toBeCloseTo(2, 9);
    expect(solver.coefficients[1]).toBeCloseTo(0.5, 9);
    // Alternating ±0.1 around the curve: the best level is 0.1.
    const bumpy = Float64Array.from(exact, (v, i) => v + (i % 2 === 0 ? 0.1 : -0.1));
    expect(solver.solve(columns, 2, weights, bumpy, 20)).toBeCloseTo(0.1, 9);
  });

  it('stops early with a lower bound above the cut-off, and refuses dependent columns', () => {
    const solver = new MinimaxFit(16, 3);
    const x = Float64Array.from({ length: 10 }, (_, i) => i);
    const columns = [new Float64Array(10).fill(1)];
    const y = Float64Array.from(x, (v) => v);
    const weights = new Float64Array(10).fill(1);
    expect(solver.solve(columns, 1, weights, y, 10)).toBeCloseTo(4.5, 12);
    expect(solver.solve(columns, 1, weights, y, 10, 1)).toBeGreaterThan(1);
    const twice = [columns[0]!, Float64Array.from(x, () => 2)];
    expect(solver.solve(twice, 2, weights, y, 10)).toBe(Infinity);
  });
});

describe('minimax fit with a non-negative constant', () => {
  it('is the free optimum when its constant is ≥ 0, else the optimum with the constant pinned at 0', () => {
    const random = rng(5);
    const solver = new MinimaxFit(64, 6);
    let pinned = 0;
    for (let trial = 0; trial < 80; trial++) {
      const q = 2 + (trial % 3);
      const rows = 2 * q + 4;
      const x = Array.from({ length: rows }, () => 1 + 9 * random());
      const columns = [
        new Float64Array(rows).fill(1),
        ...Array.from({ length: q - 1 }, (_, j) => Float64Array.from(x, (v) => Math.pow(v, 0.5 + j))),
      ];
      const y = Float64Array.from(x, (v) => (random() - 0.6) * 4 + 0.3 * v);
      const weights = Float64Array.from(x, () => 0.5 + random());
      const free = solver.solve(columns, q, weights, y, rows);
      const freeConstant = solver.coefficients[0]!;
      const bounded = solver.solve(columns, q, weights, y, rows, Infinity, 1);
      expect(solver.coefficients[0]).toBeGreaterThanOrEqual(-1e-9);
      if (freeConstant >= 0) {
        expect(bounded).toBeCloseTo(free, 9);
      } else {
        pinned++;
        expect(bounded).toBeCloseTo(solver.solve(columns.slice(1), q - 1, weights, y, rows), 9);
      }
    }
    expect(pinned).toBeGreaterThan(10);
  });
});

describe('reference bound', () => {
  it('never exceeds the minimax level, and equals it for the optimal reference', () => {
    const random = rng(21);
    const solver = new MinimaxFit(64, 6);
    for (let trial = 0; trial < 60; trial++) {
      const q = 1 + (trial % 4);
      const rows = 2 * q + 6;
      const { columns, y, weights } = randomProblem(random, q, rows, 0.9, (v) => 1 + v + 0.3 * (random() - 0.5));
      const level = solver.solve(columns, q, weights, y, rows);
      const optimal = solver.saveReference();
      expect(solver.referenceBound(columns, q, weights, y, optimal, rows)).toBeCloseTo(level, 9);
      // Any other reference of the same size bounds it from below.
      const other = { rows: Int32Array.from({ length: q + 1 }, (_, i) => (i * 3 + trial) % rows) };
      if (new Set(other.rows).size === q + 1)
        expect(solver.referenceBound(columns, q, weights, y, other, rows)).toBeLessThanOrEqual(level + 1e-12);
    }
  });
});
