// Conjugate gradient on a generated sparse symmetric positive definite matrix
// stored in CSR format.
//
// The matrix is a periodic band matrix: row i has entries in the columns
// (i + o) mod n for o = -3..3, so every row holds exactly ROW_NNZ = 7 entries
// and nnz = 7 * n (n must be at least 7 so that the columns of a row are
// distinct). Off-diagonal couplings are symmetric pseudo-random negative
// values, and the diagonal is 1 + the sum of their magnitudes, which makes the
// matrix strictly diagonally dominant and therefore SPD.
//
// The solver runs exactly `iters` iterations (no convergence test), so the
// cost is nnz * iters for the sparse matrix-vector products plus O(n * iters)
// for the vector operations.

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

const HALF_BAND: i32 = 3;
const ROW_NNZ: i32 = 2 * HALF_BAND + 1;

/** Symmetric pseudo-random coupling strength in [0.1, 1.0) of rows i and j. */
// @ts-ignore: decorator
@inline
function coupling(i: i32, j: i32): f64 {
  const lo = <u32>min(i, j);
  const hi = <u32>max(i, j);
  return 0.1 + 0.9 * lcgUnit(lcgNext(lcgNext(lo * 2654435761) ^ hi));
}

/** Builds the CSR arrays (rowPtr has n + 1 entries, cols/vals have 7n). */
function buildMatrix(rowPtr: StaticArray<i32>, cols: StaticArray<i32>, vals: StaticArray<f64>, n: i32): void {
  let k = 0;
  for (let i = 0; i < n; i++) {
    unchecked((rowPtr[i] = k));
    let offDiagonalSum = 0.0;
    for (let o = -HALF_BAND; o <= HALF_BAND; o++) {
      const j = (i + o + n) % n;
      let v = 0.0;
      if (o != 0) {
        const c = coupling(i, j);
        offDiagonalSum += c;
        v = -c;
      }
      unchecked((cols[k] = j));
      unchecked((vals[k] = v));
      k++;
    }
    // The diagonal entry (o = 0) sits in the middle of the row.
    unchecked((vals[k - 1 - HALF_BAND] = 1.0 + offDiagonalSum));
  }
  unchecked((rowPtr[n] = k));
}

/** Initial residual r = b (x0 = 0) with a pseudo-random right-hand side, and p = r. */
function initVectors(r: StaticArray<f64>, p: StaticArray<f64>, n: i32): void {
  let state: u32 = 12345;
  for (let i = 0; i < n; i++) {
    state = lcgNext(state);
    const v = lcgUnit(state) + 0.5;
    unchecked((r[i] = v));
    unchecked((p[i] = v));
  }
}

/** y = A * x for the CSR matrix A. */
function spmv(
  rowPtr: StaticArray<i32>, cols: StaticArray<i32>, vals: StaticArray<f64>,
  x: StaticArray<f64>, y: StaticArray<f64>, n: i32,
): void {
  for (let i = 0; i < n; i++) {
    let sum = 0.0;
    const end = unchecked(rowPtr[i + 1]);
    for (let k = unchecked(rowPtr[i]); k < end; k++) {
      sum += unchecked(vals[k]) * unchecked(x[unchecked(cols[k])]);
    }
    unchecked((y[i] = sum));
  }
}

/** Dot product of the first n elements of a and b. */
function dot(a: StaticArray<f64>, b: StaticArray<f64>, n: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    sum += unchecked(a[i]) * unchecked(b[i]);
  }
  return sum;
}

/** y = y + alpha * x. */
function axpy(y: StaticArray<f64>, alpha: f64, x: StaticArray<f64>, n: i32): void {
  for (let i = 0; i < n; i++) {
    unchecked((y[i] += alpha * unchecked(x[i])));
  }
}

/** y = x + beta * y. */
function xpby(x: StaticArray<f64>, beta: f64, y: StaticArray<f64>, n: i32): void {
  for (let i = 0; i < n; i++) {
    unchecked((y[i] = unchecked(x[i]) + beta * unchecked(y[i])));
  }
}

/** Position-weighted sum of the solution vector. */
function checksum(x: StaticArray<f64>, n: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    sum += unchecked(x[i]) * <f64>((i % 3) + 1);
  }
  return sum;
}

export function run(n: i32, iters: i32): f64 {
  n = param<i32>(n, "n");
  iters = param<i32>(iters, "iters");
  assert(n >= ROW_NNZ, "cg: n must be at least 7");
  const nnz = n * ROW_NNZ;
  const rowPtr = new StaticArray<i32>(n + 1);
  const cols = new StaticArray<i32>(nnz);
  const vals = new StaticArray<f64>(nnz);
  buildMatrix(rowPtr, cols, vals, n);

  const x = new StaticArray<f64>(n);
  const r = new StaticArray<f64>(n);
  const p = new StaticArray<f64>(n);
  const ap = new StaticArray<f64>(n);
  initVectors(r, p, n);

  let rr = dot(r, r, n);
  for (let it = 0; it < iters; it++) {
    spmv(rowPtr, cols, vals, p, ap, n);
    const alpha = rr / dot(p, ap, n);
    axpy(x, alpha, p, n);
    axpy(r, -alpha, ap, n);
    const rrNext = dot(r, r, n);
    xpby(r, rrNext / rr, p, n);
    rr = rrNext;
  }
  return checksum(x, n);
}
