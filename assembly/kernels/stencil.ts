// 3-D 7-point Jacobi stencil on a size^3 grid with fixed (Dirichlet) boundary.
//
// Each sweep updates the (size-2)^3 interior points from the previous grid;
// the two grids are swapped after every sweep. Cost: (size-2)^3 * iters
// point updates, i.e. O(size^3 * iters).

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

/** Fills a grid with `count` pseudo-random values in [0, 1). */
function init(grid: StaticArray<f64>, count: i32, seed: u32): void {
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = lcgNext(state);
    unchecked((grid[i] = lcgUnit(state)));
  }
}

/** One Jacobi sweep over the interior points: dst = average(src neighbourhood). */
function sweep(src: StaticArray<f64>, dst: StaticArray<f64>, size: i32): void {
  const plane = size * size;
  for (let z = 1; z < size - 1; z++) {
    for (let y = 1; y < size - 1; y++) {
      for (let x = 1; x < size - 1; x++) {
        const c = z * plane + y * size + x;
        const neighbours =
          unchecked(src[c - 1]) + unchecked(src[c + 1]) +
          unchecked(src[c - size]) + unchecked(src[c + size]) +
          unchecked(src[c - plane]) + unchecked(src[c + plane]);
        unchecked((dst[c] = 0.4 * unchecked(src[c]) + 0.1 * neighbours));
      }
    }
  }
}

/** Position-weighted sum of the grid. */
function checksum(grid: StaticArray<f64>, count: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < count; i++) {
    sum += unchecked(grid[i]) * <f64>((i % 5) + 1);
  }
  return sum;
}

export function run(size: i32, iters: i32): f64 {
  size = param<i32>(size, "size");
  iters = param<i32>(iters, "iters");
  const count = size * size * size;
  let src = new StaticArray<f64>(count);
  let dst = new StaticArray<f64>(count);
  // Both grids start identical so that the boundary stays fixed.
  init(src, count, 7);
  init(dst, count, 7);
  for (let it = 0; it < iters; it++) {
    sweep(src, dst, size);
    const tmp = src;
    src = dst;
    dst = tmp;
  }
  return checksum(src, count);
}
