/*
 * Triangular matrix multiply in the style of PolyBench/C 4.2 `trmm`:
 * B = alpha * A^T * B with A unit lower triangular, m x m, and B m x n,
 * both row-major doubles; the inner loop walks down columns of A and B
 * (stride n doubles). WASI reactor exporting `double run(int m, int n)`.
 *
 * Cost: m*(m-1)/2 * n multiply-adds in kernel_trmm().
 */
#include "kernel_support.h"
#include "taintlens.h"

static void init_array(int m, int n, double *alpha, double A[m][m], double B[m][n]) {
  *alpha = 1.5;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < i; j++)
      A[i][j] = (double)((i + j) % m) / m;
    A[i][i] = 1.0;
    for (int j = 0; j < n; j++)
      B[i][j] = (double)((n + (i - j)) % n) / n;
  }
}

__attribute__((noinline)) void kernel_trmm(int m, int n, double alpha, double A[m][m], double B[m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      for (int k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

static double checksum(int m, int n, double B[m][n]) {
  double sum = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      sum += B[i][j] * (double)((i + 2 * j) % 7 + 1);
  return sum;
}

double run(int m, int n) {
  TAINTLENS_PARAM(m, "m");
  TAINTLENS_PARAM(n, "n");
  double alpha;
  double (*A)[m] = arena_alloc(sizeof(double) * (size_t)m * (size_t)m);
  double (*B)[n] = arena_alloc(sizeof(double) * (size_t)m * (size_t)n);
  init_array(m, n, &alpha, A, B);
  kernel_trmm(m, n, alpha, A, B);
  return checksum(m, n, B);
}
