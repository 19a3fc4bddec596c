/*
 * Three-dimensional heat equation in the style of PolyBench/C 4.2
 * `heat-3d`: a seven-point stencil between two n x n x n double grids,
 * `tsteps` times each way. WASI reactor exporting
 * `double run(int n, int tsteps)`.
 *
 * Cost: 2 * tsteps * (n-2)^3 seven-point updates in kernel_heat_3d().
 */
#include "kernel_support.h"
#include "taintlens.h"

static void init_array(int n, double A[n][n][n], double B[n][n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        A[i][j][k] = B[i][j][k] = (double)(i + j + (n - k)) * 10 / n;
}

__attribute__((noinline)) void kernel_heat_3d(int tsteps, int n, double A[n][n][n], double B[n][n][n]) {
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
}

static double checksum(int n, double A[n][n][n]) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        sum += A[i][j][k] * (double)((i + j + k) % 3 + 1);
  return sum;
}

double run(int n, int tsteps) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(tsteps, "tsteps");
  size_t cells = (size_t)n * (size_t)n * (size_t)n;
  double (*A)[n][n] = arena_alloc(sizeof(double) * cells);
  double (*B)[n][n] = arena_alloc(sizeof(double) * cells);
  init_array(n, A, B);
  kernel_heat_3d(tsteps, n, A, B);
  return checksum(n, A);
}
