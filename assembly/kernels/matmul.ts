// Dense matrix multiplication C = A * B with n x n row-major matrices.
//
// Cost: n^3 multiply-adds in `multiply`; `fill` and `checksum` are O(n^2).

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

/** Fills `count` elements of `m` with pseudo-random values in [-0.5, 0.5). */
function fill(m: StaticArray<f64>, count: i32, seed: u32): void {
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = lcgNext(state);
    unchecked((m[i] = lcgUnit(state) - 0.5));
  }
}

/** c = a * b, classic i-j-k triple loop. */
function multiply(a: StaticArray<f64>, b: StaticArray<f64>, c: StaticArray<f64>, n: i32): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0.0;
      for (let k = 0; k < n; k++) {
        sum += unchecked(a[i * n + k]) * unchecked(b[k * n + j]);
      }
      unchecked((c[i * n + j] = sum));
    }
  }
}

/** Position-weighted sum of the first `count` elements of `m`. */
function checksum(m: StaticArray<f64>, count: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < count; i++) {
    sum += unchecked(m[i]) * <f64>((i % 7) + 1);
  }
  return sum;
}

export function run(n: i32): f64 {
  n = param<i32>(n, "n");
  const count = n * n;
  const a = new StaticArray<f64>(count);
  const b = new StaticArray<f64>(count);
  const c = new StaticArray<f64>(count);
  fill(a, count, 1);
  fill(b, count, 2);
  multiply(a, b, c, n);
  return checksum(c, count);
}
