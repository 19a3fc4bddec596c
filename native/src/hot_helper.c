/*
 * A kernel with a hot, tiny helper (WASI reactor exporting `double run(int n, int m)`): the
 * case where instrumenting every function costs most. sweep() calls smooth() 64 times per
 * element, so smooth() runs 64 n times and does a few instructions per visit; relax() is a
 * separate pass over m elements. No function multiplies n and m: cost is additive, n + m.
 *
 * Cost: 64 n calls of smooth() in sweep(), 8 m iterations in relax().
 */
#include "kernel_support.h"
#include "taintlens.h"

/* A few flops: the tiny helper a profiler should not time on every call. */
__attribute__((noinline)) double smooth(double x, double y) {
  return 0.5 * x + 0.25 * y + 0.125;
}

__attribute__((noinline)) double sweep(double *v, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    double x = v[i];
    for (int k = 0; k < 64; k++) x = smooth(x, acc);
    v[i] = x;
    acc += x * 1e-3;
  }
  return acc;
}

__attribute__((noinline)) double relax(double *w, int m) {
  double acc = 0.0;
  for (int i = 0; i < m; i++) {
    double x = w[i];
    for (int k = 0; k < 8; k++) x = x * 0.75 + 0.25 * (double)k;
    w[i] = x;
    acc += x;
  }
  return acc;
}

double run(int n, int m) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(m, "m");
  double *v = arena_alloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  double *w = arena_alloc((size_t)(m > 0 ? m : 1) * sizeof(double));
  uint32_t state = 12345u;
  for (int i = 0; i < n; i++) { state = lcg_next(state); v[i] = lcg_unit(state); }
  for (int i = 0; i < m; i++) { state = lcg_next(state); w[i] = lcg_unit(state); }
  return sweep(v, n) + relax(w, m);
}
