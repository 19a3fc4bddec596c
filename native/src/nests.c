/*
 * Loop nests with known closed-form instruction counts, for the exact models of
 * `taintlens model` (WASI reactor). Each export takes its sizes as arguments:
 *
 *   lu(n)          LU factorization without pivoting: the triangular nest
 *                  k < n, i in (k, n), j in (k, n): n^3/3 + lower-order terms.
 *   heat(t, n)     t time steps of an n x n update whose every point sums a
 *                  row of length n: a tsteps x n^2 x n nest (t*n^3, t*n^2).
 *   sortnet(n)     log2(n) passes over n elements (n a power of two):
 *                  an outer loop with a logarithmic trip count (n*log2 n).
 *   nest3(a,b,c)   for a { for b { work; for c { work } } }: a*b*c + a*b.
 */
#include "kernel_support.h"
#include "taintlens.h"

__attribute__((noinline)) void fill(double *m, int count, uint32_t seed) {
  uint32_t state = seed;
  for (int i = 0; i < count; i++) {
    state = lcg_next(state);
    m[i] = lcg_unit(state) + 1.0;
  }
}

__attribute__((noinline)) double sum(const double *m, int count) {
  double s = 0.0;
  for (int i = 0; i < count; i++) s += m[i];
  return s;
}

/* In-place LU of a diagonally dominant matrix. */
__attribute__((noinline)) void factor(double *a, int n) {
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++) {
      double l = a[i * n + k] / a[k * n + k];
      a[i * n + k] = l;
      for (int j = k + 1; j < n; j++) a[i * n + j] -= l * a[k * n + j];
    }
  }
}

double lu(int n) {
  TAINTLENS_PARAM(n, "n");
  double *a = arena_alloc(sizeof(double) * (size_t)(n * n));
  fill(a, n * n, 3);
  for (int i = 0; i < n; i++) a[i * n + i] += n;
  factor(a, n);
  return sum(a, n * n);
}

__attribute__((noinline)) void step(const double *src, double *dst, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += src[i * n + k];
      dst[i * n + j] = 0.5 * src[i * n + j] + s / (4.0 * n);
    }
  }
}

double heat(int t, int n) {
  TAINTLENS_PARAM(t, "t");
  TAINTLENS_PARAM(n, "n");
  double *a = arena_alloc(sizeof(double) * (size_t)(n * n));
  double *b = arena_alloc(sizeof(double) * (size_t)(n * n));
  fill(a, n * n, 5);
  for (int s = 0; s < t; s++) {
    step(a, b, n);
    double *tmp = a;
    a = b;
    b = tmp;
  }
  return sum(a, n * n);
}

/* log2(n) passes, each ordering the n/2 pairs at distance `gap`. */
__attribute__((noinline)) void passes(double *v, int n) {
  for (int gap = 1; gap < n; gap *= 2) {
    for (int i = 0; i < n; i++) {
      int j = i ^ gap;
      if (j > i) {
        /* min/max rather than a data-dependent branch: the count depends on n only. */
        double a = v[i], b = v[j];
        v[i] = __builtin_fmin(a, b);
        v[j] = __builtin_fmax(a, b);
      }
    }
  }
}

double sortnet(int n) {
  TAINTLENS_PARAM(n, "n");
  double *v = arena_alloc(sizeof(double) * (size_t)n);
  fill(v, n, 7);
  passes(v, n);
  return sum(v, n);
}

__attribute__((noinline)) double nest(double *v, int a, int b, int c) {
  double s = 0.0;
  for (int i = 0; i < a; i++) {
    for (int j = 0; j < b; j++) {
      s += v[(i + j) & 63];
      for (int k = 0; k < c; k++) v[(i + j + k) & 63] += 0.5;
    }
  }
  return s;
}

double nest3(int a, int b, int c) {
  TAINTLENS_PARAM(a, "a");
  TAINTLENS_PARAM(b, "b");
  TAINTLENS_PARAM(c, "c");
  double *v = arena_alloc(sizeof(double) * 64);
  fill(v, 64, 11);
  return nest(v, a, b, c);
}
