/*
 * General matrix multiply in the style of PolyBench/C 4.2 `gemm`:
 * C = alpha * A * B + beta * C with n x n row-major double matrices
 * (WASI reactor exporting `double run(int n)`). Built with plain -O2
 * like third-party code: the compiler may unroll and rotate freely.
 *
 * Cost: n^3 multiply-adds in kernel_gemm(); init and checksum are O(n^2).
 */
#include "kernel_support.h"
#include "taintlens.h"

static void init_array(int n, double *alpha, double *beta, double C[n][n], double A[n][n], double B[n][n]) {
  *alpha = 1.5;
  *beta = 1.2;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] = (double)((i * j + 1) % n) / n;
      A[i][j] = (double)(i * (j + 1) % n) / n;
      B[i][j] = (double)(i * (j + 2) % n) / n;
    }
}

__attribute__((noinline)) void kernel_gemm(int n, double alpha, double beta, double C[n][n], double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

static double checksum(int n, double C[n][n]) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      sum += C[i][j] * (double)((i + j) % 5 + 1);
  return sum;
}

double run(int n) {
  TAINTLENS_PARAM(n, "n");
  double alpha, beta;
  double (*A)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  double (*B)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  double (*C)[n] = arena_alloc(sizeof(double) * (size_t)n * (size_t)n);
  init_array(n, &alpha, &beta, C, A, B);
  kernel_gemm(n, alpha, beta, C, A, B);
  return checksum(n, C);
}
