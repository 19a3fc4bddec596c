/*
 * Two-dimensional Jacobi stencil in the style of PolyBench/C 4.2
 * `jacobi-2d`: five-point averages between two n x n double grids,
 * `tsteps` times each way. WASI reactor exporting
 * `double run(int n, int tsteps)`.
 *
 * Cost: 2 * tsteps * (n-2)^2 five-point updates in kernel_jacobi_2d().
 */
#include "kernel_support.h"
#include "taintlens.h"

static void init_array(int n, double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = ((double)i * (j + 2) + 2) / n;
      B[i][j] = ((double)i * (j + 3) + 3) / n;
    }
}

__attribute__((noinline)) void kernel_jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}

static double checksum(int n, double A[n][n]) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      sum += A[i][j] * (double)((i * 3 + j) % 11 + 1);
  return sum;
}

double run(int n, int tsteps) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(tsteps, "tsteps");
  double (*A)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  double (*B)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  init_array(n, A, B);
  kernel_jacobi_2d(tsteps, n, A, B);
  return checksum(n, A);
}
