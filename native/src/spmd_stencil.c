/*
 * SPMD 2-D Jacobi stencil with halo exchange, written against the MPI subset of mpi.h (run it with
 * `taintlens run native/wasm/spmd_stencil.wasm --ranks P --args n,steps`). An n x n periodic grid
 * is split into P blocks of columns; every step each rank packs its two edge columns (n values
 * each), exchanges them with its neighbours (MPI_Sendrecv), unpacks the halos, updates its n x n/P
 * cells with a five-point average, and the ranks agree on the largest change (MPI_Allreduce).
 *
 * Per rank and step: compute n*n/P updates, halo n packs + n unpacks per side. Over all ranks:
 * compute n^2, halo 4*n*P. Every cell is computed from the same operands in the same order
 * whatever P is, so the returned checksum (an integer sum, combined exactly) equals the P=1 run's.
 */
#include "kernel_support.h"
#include "taintlens.h"
#include "mpi.h"
#include "spmd_support.h"

__attribute__((noinline)) static void pack(int n, int stride, const double *grid, int column, double *out) {
  for (int i = 0; i < n; i++) out[i] = grid[i * stride + column];
}

__attribute__((noinline)) static void unpack(int n, int stride, double *grid, int column, const double *in) {
  for (int i = 0; i < n; i++) grid[i * stride + column] = in[i];
}

__attribute__((noinline)) static double update(int n, int width, const double *a, double *b) {
  int stride = width + 2;
  double change = 0.0;
  for (int i = 0; i < n; i++) {
    const double *up = a + ((i + n - 1) % n) * stride;
    const double *row = a + i * stride;
    const double *down = a + ((i + 1) % n) * stride;
    double *out = b + i * stride;
    for (int j = 1; j <= width; j++) {
      double v = 0.2 * (row[j] + row[j - 1] + row[j + 1] + up[j] + down[j]);
      double d = v > row[j] ? v - row[j] : row[j] - v;
      if (d > change) change = d;
      out[j] = v;
    }
  }
  return change;
}

int run(int n, int steps) {
  TAINTLENS_PARAM(n, "n");
  int rank, size;
  spmd_start(n, &rank, &size);
  int first = spmd_block_start(n, size, rank);
  int width = spmd_block_start(n, size, rank + 1) - first;
  int stride = width + 2;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double *a = arena_alloc(sizeof(double) * (size_t)(n * stride));
  double *b = arena_alloc(sizeof(double) * (size_t)(n * stride));
  double *halo = arena_alloc(sizeof(double) * (size_t)(4 * n));
  double *send_left = halo, *send_right = halo + n, *from_left = halo + 2 * n, *from_right = halo + 3 * n;
  for (int i = 0; i < n; i++)
    for (int j = 1; j <= width; j++) a[i * stride + j] = (double)((i * 37 + (first + j - 1) * 11) % 101) / 101.0;
  double change = 0.0;
  for (int t = 0; t < steps; t++) {
    pack(n, stride, a, 1, send_left);
    pack(n, stride, a, width, send_right);
    MPI_Sendrecv(send_left, n, MPI_DOUBLE, left, 1, from_right, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_right, n, MPI_DOUBLE, right, 2, from_left, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unpack(n, stride, a, width + 1, from_right);
    unpack(n, stride, a, 0, from_left);
    double local = update(n, width, a, b);
    MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double *swap = a;
    a = b;
    b = swap;
  }
  int sum = spmd_checksum(n, width, stride, first, a);
  MPI_Finalize();
  return sum ^ (int)(change * 1048576.0);
}
