/*
 * General matrix multiply as PolyBench/C 4.2 `gemm` runs it from the command line: C = alpha * A * B
 * + beta * C with C ni x nj, A ni x nk, B nk x nj, the three sizes read from argv with atoi, the
 * matrices from malloc, and the checksum printed with printf. A WASI command
 * (`gemm_cmd NI NJ NK`): the campaign of issue 28.2, whose call paths include the allocator, atoi
 * and printf, which `taintlens model` folds into their callers by default.
 *
 * Cost: ni * nj * nk multiply-adds in kernel_gemm(); init and checksum are O(ni*nk + nk*nj + ni*nj).
 */
#include <stdio.h>
#include <stdlib.h>

static void init_array(int ni, int nj, int nk, double *C, double *A, double *B) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) C[i * nj + j] = (double)((i * j + 1) % ni) / ni;
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++) A[i * nk + k] = (double)(i * (k + 1) % nk) / nk;
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++) B[k * nj + j] = (double)(k * (j + 2) % nj) / nj;
}

__attribute__((noinline)) void kernel_gemm(int ni, int nj, int nk, double alpha, double beta, double *C, const double *A,
                                           const double *B) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) C[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
  }
}

static double checksum(int ni, int nj, const double *C) {
  double sum = 0.0;
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) sum += C[i * nj + j] * (double)((i + j) % 5 + 1);
  return sum;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: gemm_cmd NI NJ NK\n");
    return 2;
  }
  int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]);
  double *C = malloc(sizeof(double) * (size_t)ni * (size_t)nj);
  double *A = malloc(sizeof(double) * (size_t)ni * (size_t)nk);
  double *B = malloc(sizeof(double) * (size_t)nk * (size_t)nj);
  if (!C || !A || !B) return 1;
  init_array(ni, nj, nk, C, A, B);
  kernel_gemm(ni, nj, nk, 1.5, 1.2, C, A, B);
  printf("%.6f\n", checksum(ni, nj, C));
  free(C);
  free(A);
  free(B);
  return 0;
}
