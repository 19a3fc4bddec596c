// Inclusive prefix scan (running sum) of n pseudo-random doubles.
//
// Cost: O(n) in each of init, scan and checksum.

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

function init(a: StaticArray<f64>, n: i32): void {
  let state: u32 = 4242;
  for (let i = 0; i < n; i++) {
    state = lcgNext(state);
    unchecked((a[i] = lcgUnit(state) - 0.25));
  }
}

/** out[i] = in[0] + ... + in[i]. */
function inclusiveScan(input: StaticArray<f64>, out: StaticArray<f64>, n: i32): void {
  let running = 0.0;
  for (let i = 0; i < n; i++) {
    running += unchecked(input[i]);
    unchecked((out[i] = running));
  }
}

/** Alternating-sign sum of the prefix sums. */
function checksum(a: StaticArray<f64>, n: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    sum += (i & 1) == 0 ? unchecked(a[i]) : -0.5 * unchecked(a[i]);
  }
  return sum;
}

export function run(n: i32): f64 {
  n = param<i32>(n, "n");
  const input = new StaticArray<f64>(n);
  const out = new StaticArray<f64>(n);
  init(input, n);
  inclusiveScan(input, out, n);
  return checksum(out, n);
}
