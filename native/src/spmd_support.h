/*
 * Helpers shared by the SPMD kernels (spmd_*.c, header-only): the block distribution of n items
 * over the ranks, and a checksum of a rank's columns combined exactly over all ranks (an integer
 * sum wraps the same in any order), so every rank count gives the single-instance result.
 */
#ifndef SPMD_SUPPORT_H
#define SPMD_SUPPORT_H

#include <stdint.h>
#include "mpi.h"

/* First of the items [0, n) that rank `rank` of `size` owns (rank `size`: n). */
static inline int spmd_block_start(int n, int size, int rank) {
  int base = n / size, extra = n % size;
  return rank * base + (rank < extra ? rank : extra);
}

/* Rank and size from MPI, after MPI_Init; traps when some rank would own nothing. */
static inline void spmd_start(int n, int *rank, int *size) {
  MPI_Init(0, 0);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  if (n < *size) __builtin_trap(); /* every rank needs a share */
}

/* Checksum of an n-row grid whose columns 1..width (row stride `stride`) are global columns
 * first..first+width-1, summed over all ranks. */
static inline int spmd_checksum(int n, int width, int stride, int first, const double *grid) {
  uint32_t local = 0;
  for (int i = 0; i < n; i++)
    for (int j = 1; j <= width; j++)
      local += (uint32_t)(grid[i * stride + j] * 1048576.0) * (uint32_t)(i * 7 + (first + j - 1) * 13 + 1);
  int sum = 0, mine = (int)local;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

#endif
