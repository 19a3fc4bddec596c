/*
 * SPMD conjugate gradient on the 1-D Poisson matrix (tridiagonal 2, -1), against the MPI subset of
 * mpi.h: allreduce-heavy. The n rows are split into P blocks; every iteration exchanges one halo
 * value with each neighbour (MPI_Sendrecv), multiplies, and needs two global dot products
 * (MPI_Allreduce), so each rank's share of the arithmetic shrinks as n/P while its collectives
 * stay. `iters` iterations are run; the result is the final residual norm. Dot products are
 * combined in rank order, so the result repeats exactly for a given P, but differs in the last bits
 * between different P (floating-point sums in another order).
 */
#include "kernel_support.h"
#include "taintlens.h"
#include "mpi.h"
#include "spmd_support.h"

__attribute__((noinline)) static double dot(int rows, const double *x, const double *y) {
  double local = 0.0, global = 0.0;
  for (int i = 0; i < rows; i++) local += x[i] * y[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

/* q = A p, with p[-1] and p[rows] the neighbours' halo values (0 outside the matrix). */
__attribute__((noinline)) static void matvec(int rows, const double *p, double *q) {
  for (int i = 0; i < rows; i++) q[i] = 2.0 * p[i] - p[i - 1] - p[i + 1];
}

__attribute__((noinline)) static void exchange(int rank, int size, int rows, double *p) {
  double zero_left = 0.0, zero_right = 0.0;
  if (rank > 0)
    MPI_Sendrecv(&p[0], 1, MPI_DOUBLE, rank - 1, 1, &p[-1], 1, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    p[-1] = zero_left;
  if (rank < size - 1)
    MPI_Sendrecv(&p[rows - 1], 1, MPI_DOUBLE, rank + 1, 2, &p[rows], 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    p[rows] = zero_right;
}

double run(int n, int iters) {
  TAINTLENS_PARAM(n, "n");
  int rank, size;
  spmd_start(n, &rank, &size);
  int first = spmd_block_start(n, size, rank);
  int rows = spmd_block_start(n, size, rank + 1) - first;
  double *x = arena_alloc(sizeof(double) * (size_t)rows);
  double *r = arena_alloc(sizeof(double) * (size_t)rows);
  double *p = (double *)arena_alloc(sizeof(double) * (size_t)(rows + 2)) + 1;
  double *q = arena_alloc(sizeof(double) * (size_t)rows);
  for (int i = 0; i < rows; i++) {
    double b = (double)((first + i) % 7 + 1);
    x[i] = 0.0;
    r[i] = b;
    p[i] = b;
  }
  double rr = dot(rows, r, r);
  for (int k = 0; k < iters && rr > 1e-30; k++) {
    exchange(rank, size, rows, p);
    matvec(rows, p, q);
    double alpha = rr / dot(rows, p, q);
    for (int i = 0; i < rows; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rr_next = dot(rows, r, r);
    double beta = rr_next / rr;
    for (int i = 0; i < rows; i++) p[i] = r[i] + beta * p[i];
    rr = rr_next;
  }
  MPI_Finalize();
  return rr;
}
