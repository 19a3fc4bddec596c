// Small kernels for testing the taint analysis: which input parameters
// determine the trip count of which loop (examples in the spirit of the
// Perf-Taint paper). Every export marks its arguments with `param` and returns
// an i32 checksum. Loop bodies mix the accumulator non-linearly
// (acc = acc * 3 + ...), so no optimizer can replace a loop by a closed form.
//
// Export           loops (trip count per entry)           parameters driving loops
// foo(a, b, c)     r = (b > 0 ? 2a : a) + (c > 0 ? 1 : 0)   a, b, c
// nest_const(n)    n; 10                                 outer: n, inner: none
// nest_linear(n)   4; n                                  outer: none, inner: n
// nest_quadratic(n, m)  n; m                             n; m
// triangular(n)    n; i (i = 0..n-1)                     n; n (through i)
// matmul_small(m, n, k) m; n; k                          m; n; k
// foo_ab(a, b)     a                                     a (b only feeds arithmetic)
// via_memory(n)    n (bound loaded from an array)        n
// via_global(n)    n (bound read from a global)          n
// via_return(n)    (n >> 1) + 2 (returned by a helper)   n
// via_indirect(n)  n odd: 2n + 1, n even: (n >> 1) + 1   n
//                  (bound computed by call_indirect)
// callee_in_loop(n) n; callee loop 5                     n; none

import { param } from "../taintlens";

/** Result depends on a by data, on b explicitly (branch selects the value),
 * on c implicitly (control dependence only); the loop runs r times. */
export function foo(a: i32, b: i32, c: i32): i32 {
  a = param<i32>(a, "a");
  b = param<i32>(b, "b");
  c = param<i32>(c, "c");
  let r = a;
  if (b > 0) r = 2 * a;
  if (c > 0) {
    r += 1;
    implicitBranchesTaken++;
  }
  let acc = 0;
  for (let i = 0; i < r; i++) {
    acc = acc * 3 + i;
  }
  return acc;
}

/** Counts how often foo's c-branch was taken (a side effect that keeps the
 * branch a real branch instead of a select). */
let implicitBranchesTaken: i32 = 0;

/** Outer loop over n, inner loop with the constant trip count 10. */
export function nest_const(n: i32): i32 {
  n = param<i32>(n, "n");
  let acc = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 10; j++) {
      acc = acc * 3 + (i ^ j);
    }
  }
  return acc;
}

/** Constant outer loop (4), inner loop over n: linear in n. */
export function nest_linear(n: i32): i32 {
  n = param<i32>(n, "n");
  let acc = 1;
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < n; j++) {
      acc = acc * 3 + i * j;
    }
  }
  return acc;
}

/** Outer loop over n, inner loop over m: n * m body executions. */
export function nest_quadratic(n: i32, m: i32): i32 {
  n = param<i32>(n, "n");
  m = param<i32>(m, "m");
  let acc = 2;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      acc = acc * 3 + (i + 2 * j);
    }
  }
  return acc;
}

/** Inner loop bounded by the outer induction variable: n(n-1)/2 executions. */
export function triangular(n: i32): i32 {
  n = param<i32>(n, "n");
  let acc = 3;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      acc = acc * 3 + (i - j);
    }
  }
  return acc;
}

/** Triple loop nest of an m x k by k x n matrix product (generated values). */
export function matmul_small(m: i32, n: i32, k: i32): i32 {
  m = param<i32>(m, "m");
  n = param<i32>(n, "n");
  k = param<i32>(k, "k");
  let acc = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let l = 0; l < k; l++) {
        sum += ((i * 7 + l * 3) % 11) * ((l * 5 + j * 2) % 13);
      }
      acc = acc * 3 + sum;
    }
  }
  return acc;
}

/** Loop over a; b only feeds the arithmetic, so b is prunable. */
export function foo_ab(a: i32, b: i32): i32 {
  a = param<i32>(a, "a");
  b = param<i32>(b, "b");
  let acc = 0;
  for (let i = 0; i < a; i++) {
    acc = acc * 3 + b * i;
  }
  return acc;
}

/** The loop bound travels through linear memory: stored into an array by the
 * caller, loaded by the callee. */
export function via_memory(n: i32): i32 {
  n = param<i32>(n, "n");
  const slots = new StaticArray<i32>(4);
  unchecked((slots[2] = n));
  return loopOverSlot(slots, 2);
}

function loopOverSlot(slots: StaticArray<i32>, index: i32): i32 {
  const bound = unchecked(slots[index]);
  let acc = 5;
  for (let i = 0; i < bound; i++) {
    acc = acc * 3 + (i & 7);
  }
  return acc;
}

/** The loop bound travels through a global variable. */
let globalBound: i32 = 0;

export function via_global(n: i32): i32 {
  n = param<i32>(n, "n");
  globalBound = n;
  return loopOverGlobal();
}

function loopOverGlobal(): i32 {
  let acc = 6;
  for (let i = 0; i < globalBound; i++) {
    acc = acc * 3 + (i | 1);
  }
  return acc;
}

/** The loop bound is the return value of a helper. */
export function via_return(n: i32): i32 {
  n = param<i32>(n, "n");
  const bound = boundFromHelper(n);
  let acc = 7;
  for (let i = 0; i < bound; i++) {
    acc = acc * 3 + (i >> 1);
  }
  return acc;
}

function boundFromHelper(x: i32): i32 {
  return (x >> 1) + 2;
}

function twicePlusOne(x: i32): i32 {
  return 2 * x + 1;
}

function halfPlusOne(x: i32): i32 {
  return (x >> 1) + 1;
}

/** Function table in linear memory; the callee is chosen at run time. */
const boundFunctions: StaticArray<(x: i32) => i32> = [halfPlusOne, twicePlusOne];

/** The loop bound is computed by an indirect call (call_indirect). */
export function via_indirect(n: i32): i32 {
  n = param<i32>(n, "n");
  const compute = unchecked(boundFunctions[n & 1]);
  const bound = compute(n);
  let acc = 8;
  for (let i = 0; i < bound; i++) {
    acc = acc * 3 + (i ^ 5);
  }
  return acc;
}

/** Contains its own loop with the constant trip count 5. */
function innerFive(x: i32): i32 {
  let s = x;
  for (let j = 0; j < 5; j++) {
    s = s * 5 + j;
  }
  return s;
}

/** A loop over n calling innerFive: its loop runs under this loop, n entries. */
export function callee_in_loop(n: i32): i32 {
  n = param<i32>(n, "n");
  let acc = 9;
  for (let i = 0; i < n; i++) {
    acc = acc * 3 + innerFive(i);
  }
  return acc;
}
