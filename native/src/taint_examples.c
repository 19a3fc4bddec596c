/*
 * Small kernels for testing the taint analysis: which input parameters
 * determine the trip count of which loop. A C port of
 * assembly/kernels/taint_examples.ts (same exports, same results), built as
 * a WASI reactor. Arithmetic is unsigned so that wrap-around is defined;
 * loop bodies mix the accumulator non-linearly (acc = acc * 3 + ...) so the
 * optimizer cannot replace a loop by a closed form. Helpers have external
 * linkage and are never inlined, so the compiler can neither inline nor
 * specialise them.
 */
#include "taintlens.h"

#define NOINLINE __attribute__((noinline))

/* How often foo's c-branch was taken: a side effect that keeps the branch a
 * real branch (implicit flow) instead of a select. */
int implicit_branches_taken = 0;

/* Result depends on a by data, on b explicitly (the branch selects the
 * value), on c implicitly (control dependence); the loop runs r times. */
int foo(int a, int b, int c) {
  TAINTLENS_PARAM(a, "a");
  TAINTLENS_PARAM(b, "b");
  TAINTLENS_PARAM(c, "c");
  int r = a;
  if (b > 0) r = 2 * a;
  if (c > 0) {
    r += 1;
    implicit_branches_taken++;
  }
  unsigned acc = 0;
  for (int i = 0; i < r; i++) {
    acc = acc * 3u + (unsigned)i;
  }
  return (int)acc;
}

/* Outer loop over n, inner loop with the constant trip count 10. */
int nest_const(int n) {
  TAINTLENS_PARAM(n, "n");
  unsigned acc = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 10; j++) {
      acc = acc * 3u + (unsigned)(i ^ j);
    }
  }
  return (int)acc;
}

/* Constant outer loop (4), inner loop over n: linear in n. */
int nest_linear(int n) {
  TAINTLENS_PARAM(n, "n");
  unsigned acc = 1;
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < n; j++) {
      acc = acc * 3u + (unsigned)(i * j);
    }
  }
  return (int)acc;
}

/* Outer loop over n, inner loop over m: n * m body executions. */
int nest_quadratic(int n, int m) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(m, "m");
  unsigned acc = 2;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      acc = acc * 3u + (unsigned)(i + 2 * j);
    }
  }
  return (int)acc;
}

/* Inner loop bounded by the outer induction variable: n(n-1)/2 executions. */
int triangular(int n) {
  TAINTLENS_PARAM(n, "n");
  unsigned acc = 3;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      acc = acc * 3u + (unsigned)(i - j);
    }
  }
  return (int)acc;
}

/* Triple loop nest of an m x k by k x n matrix product (generated values). */
int matmul_small(int m, int n, int k) {
  TAINTLENS_PARAM(m, "m");
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(k, "k");
  unsigned acc = 0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      unsigned sum = 0;
      for (int l = 0; l < k; l++) {
        sum += (unsigned)(((i * 7 + l * 3) % 11) * ((l * 5 + j * 2) % 13));
      }
      acc = acc * 3u + sum;
    }
  }
  return (int)acc;
}

/* Loop over a; b only feeds the arithmetic, so b is prunable. */
int foo_ab(int a, int b) {
  TAINTLENS_PARAM(a, "a");
  TAINTLENS_PARAM(b, "b");
  unsigned acc = 0;
  for (int i = 0; i < a; i++) {
    acc = acc * 3u + (unsigned)b * (unsigned)i;
  }
  return (int)acc;
}

/* The loop bound is loaded from memory by the callee. */
NOINLINE int loop_over_slot(const int *slots, int index) {
  int bound = slots[index];
  unsigned acc = 5;
  for (int i = 0; i < bound; i++) {
    acc = acc * 3u + (unsigned)(i & 7);
  }
  return (int)acc;
}

/* The loop bound travels through linear memory: stored into an array by the
 * caller, loaded by the callee. */
int via_memory(int n) {
  TAINTLENS_PARAM(n, "n");
  int slots[4] = {0, 0, 0, 0};
  slots[2] = n;
  return loop_over_slot(slots, 2);
}

/* The loop bound travels through a global variable. */
int global_bound = 0;

NOINLINE int loop_over_global(void) {
  unsigned acc = 6;
  for (int i = 0; i < global_bound; i++) {
    acc = acc * 3u + (unsigned)(i | 1);
  }
  return (int)acc;
}

int via_global(int n) {
  TAINTLENS_PARAM(n, "n");
  global_bound = n;
  return loop_over_global();
}

/* The loop bound is the return value of a helper. */
NOINLINE int bound_from_helper(int x) {
  return (x >> 1) + 2;
}

int via_return(int n) {
  TAINTLENS_PARAM(n, "n");
  int bound = bound_from_helper(n);
  unsigned acc = 7;
  for (int i = 0; i < bound; i++) {
    acc = acc * 3u + (unsigned)(i >> 1);
  }
  return (int)acc;
}

NOINLINE int twice_plus_one(int x) {
  return 2 * x + 1;
}

NOINLINE int half_plus_one(int x) {
  return (x >> 1) + 1;
}

/* Function table in linear memory (mutable, so the callee is only known at
 * run time). */
int (*bound_functions[2])(int) = {half_plus_one, twice_plus_one};

/* The loop bound is computed by an indirect call (call_indirect). */
int via_indirect(int n) {
  TAINTLENS_PARAM(n, "n");
  int bound = bound_functions[n & 1](n);
  unsigned acc = 8;
  for (int i = 0; i < bound; i++) {
    acc = acc * 3u + (unsigned)(i ^ 5);
  }
  return (int)acc;
}

/* Contains its own loop with the constant trip count 5. */
NOINLINE int inner_five(int x) {
  unsigned s = (unsigned)x;
  for (int j = 0; j < 5; j++) {
    s = s * 5u + (unsigned)j;
  }
  return (int)s;
}

/* A loop over n calling inner_five: its loop runs under this loop. */
int callee_in_loop(int n) {
  TAINTLENS_PARAM(n, "n");
  unsigned acc = 9;
  for (int i = 0; i < n; i++) {
    acc = acc * 3u + (unsigned)inner_five(i);
  }
  return (int)acc;
}
