/*
 * Dense matrix multiplication C = A * B with n x n row-major matrices
 * (WASI reactor exporting `double run(int n)`). A port of
 * assembly/kernels/matmul.ts that computes the identical checksum.
 *
 * Cost: n^3 multiply-adds in multiply(); fill() and checksum() are O(n^2).
 */
#include "kernel_support.h"
#include "taintlens.h"

/* Fills `count` elements of `m` with pseudo-random values in [-0.5, 0.5). */
__attribute__((noinline)) void fill(double *m, int count, uint32_t seed) {
  uint32_t state = seed;
  for (int i = 0; i < count; i++) {
    state = lcg_next(state);
    m[i] = lcg_unit(state) - 0.5;
  }
}

/* c = a * b, classic i-j-k triple loop. */
__attribute__((noinline)) void multiply(const double *a, const double *b, double *c, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double sum = 0.0;
      for (int k = 0; k < n; k++) {
        sum += a[i * n + k] * b[k * n + j];
      }
      c[i * n + j] = sum;
    }
  }
}

/* Position-weighted sum of the first `count` elements of `m`. */
__attribute__((noinline)) double checksum(const double *m, int count) {
  double sum = 0.0;
  for (int i = 0; i < count; i++) {
    sum += m[i] * (double)((i % 7) + 1);
  }
  return sum;
}

double run(int n) {
  TAINTLENS_PARAM(n, "n");
  int count = n * n;
  double *a = arena_alloc(sizeof(double) * (size_t)count);
  double *b = arena_alloc(sizeof(double) * (size_t)count);
  double *c = arena_alloc(sizeof(double) * (size_t)count);
  fill(a, count, 1);
  fill(b, count, 2);
  multiply(a, b, c, n);
  return checksum(c, count);
}
