/*
 * LU factorisation without pivoting in the style of PolyBench/C 4.2 `lu`:
 * A = L * U in place on an n x n row-major double matrix (diagonally
 * dominant, so no pivoting is needed); the inner loops read A down a
 * column. WASI reactor exporting `double run(int n)`.
 *
 * Cost: about n^3 / 3 multiply-adds in kernel_lu().
 */
#include "kernel_support.h"
#include "taintlens.h"

static void init_array(int n, double A[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      A[i][j] = (double)((i * 7 + j * 3) % n) / (4.0 * n);
    A[i][i] += n;
  }
}

__attribute__((noinline)) void kernel_lu(int n, double A[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}

static double checksum(int n, double A[n][n]) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      sum += A[i][j] * (double)((i + j) % 4 + 1);
  return sum;
}

double run(int n) {
  TAINTLENS_PARAM(n, "n");
  double (*A)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  init_array(n, A);
  kernel_lu(n, A);
  return checksum(n, A);
}
