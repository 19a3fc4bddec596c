// Top-down recursive merge sort of n pseudo-random doubles.
//
// Every merge of a range of length len runs two loops of exactly len
// iterations (merge into the scratch buffer, copy back). Summed over the
// recursion this is n * ceil(log2 n) per loop for n a power of two, and
// O(n log n) in general.

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

function init(a: StaticArray<f64>, n: i32): void {
  let state: u32 = 99;
  for (let i = 0; i < n; i++) {
    state = lcgNext(state);
    unchecked((a[i] = lcgUnit(state)));
  }
}

/** Merges the sorted runs a[lo, mid) and a[mid, hi) via the scratch buffer. */
function merge(a: StaticArray<f64>, tmp: StaticArray<f64>, lo: i32, mid: i32, hi: i32): void {
  let i = lo;
  let j = mid;
  for (let k = lo; k < hi; k++) {
    if (i < mid && (j >= hi || unchecked(a[i]) <= unchecked(a[j]))) {
      unchecked((tmp[k] = unchecked(a[i])));
      i++;
    } else {
      unchecked((tmp[k] = unchecked(a[j])));
      j++;
    }
  }
  for (let k = lo; k < hi; k++) {
    unchecked((a[k] = unchecked(tmp[k])));
  }
}

/** Sorts a[lo, hi). */
function sortRange(a: StaticArray<f64>, tmp: StaticArray<f64>, lo: i32, hi: i32): void {
  if (hi - lo < 2) return;
  const mid = lo + ((hi - lo) >> 1);
  sortRange(a, tmp, lo, mid);
  sortRange(a, tmp, mid, hi);
  merge(a, tmp, lo, mid, hi);
}

/** Order-sensitive checksum: position-weighted sum of the sorted values. */
function checksum(a: StaticArray<f64>, n: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    sum += unchecked(a[i]) * <f64>(i + 1);
  }
  return sum;
}

export function run(n: i32): f64 {
  n = param<i32>(n, "n");
  const a = new StaticArray<f64>(n);
  const tmp = new StaticArray<f64>(n);
  init(a, n);
  sortRange(a, tmp, 0, n);
  return checksum(a, n);
}
