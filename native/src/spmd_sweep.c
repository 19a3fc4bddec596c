/*
 * SPMD pipelined wavefront sweep in the style of Sweep3D (reduced to two dimensions), against the
 * MPI subset of mpi.h. An n x n grid is split into P blocks of columns; cell (i, j) depends on
 * (i-1, j) and (i, j-1), so a sweep moves as a wavefront: rank r waits for the last column of rank
 * r-1, `block` rows at a time (n/16, at least 4), computes those rows of its columns and passes its
 * own last column on.
 * Every step sweeps twice, left to right and right to left (two "octants"). The pipeline takes
 * n/block + P - 1 stages per sweep: the fill (the leading edge, visible in each rank's first
 * receive) grows with P. The checksum equals the P=1 run's.
 */
#include "kernel_support.h"
#include "taintlens.h"
#include "mpi.h"
#include "spmd_support.h"

/* Rows [row, row+rows) of the owned columns, left to right (dir 1) or right to left (dir -1). */
__attribute__((noinline)) static void sweep_block(int row, int rows, int width, double *grid, const double *edge, const double *source, int dir) {
  int stride = width + 2;
  for (int i = row; i < row + rows; i++) {
    double prev = edge[i - row];
    for (int k = 0; k < width; k++) {
      int j = dir > 0 ? 1 + k : width - k;
      double above = i > 0 ? grid[(i - 1) * stride + j] : 0.0;
      double v = 0.5 * (above + prev) + 0.1 * source[i * stride + j];
      grid[i * stride + j] = v;
      prev = v;
    }
  }
}

__attribute__((noinline)) static void last_column(int row, int rows, int width, const double *grid, double *out, int dir) {
  int stride = width + 2;
  int j = dir > 0 ? width : 1;
  for (int i = 0; i < rows; i++) out[i] = grid[(row + i) * stride + j];
}

int run(int n, int steps) {
  TAINTLENS_PARAM(n, "n");
  int rank, size;
  spmd_start(n, &rank, &size);
  int block = n / 16 > 4 ? n / 16 : 4; /* 16 stages per sweep and rank (for n >= 64), plus the fill */
  int first = spmd_block_start(n, size, rank);
  int width = spmd_block_start(n, size, rank + 1) - first;
  int stride = width + 2;
  double *grid = arena_alloc(sizeof(double) * (size_t)(n * stride));
  double *source = arena_alloc(sizeof(double) * (size_t)(n * stride));
  double *edge_in = arena_alloc(sizeof(double) * (size_t)block);
  double *edge_out = arena_alloc(sizeof(double) * (size_t)block);
  for (int i = 0; i < n; i++)
    for (int j = 1; j <= width; j++) source[i * stride + j] = (double)((i * 17 + (first + j - 1) * 29) % 53) / 53.0;
  for (int t = 0; t < steps; t++) {
    for (int dir = 1; dir >= -1; dir -= 2) {
      int upstream = rank - dir, downstream = rank + dir;
      for (int row = 0; row < n; row += block) {
        int rows = n - row < block ? n - row : block;
        if (upstream >= 0 && upstream < size) MPI_Recv(edge_in, rows, MPI_DOUBLE, upstream, dir > 0 ? 1 : 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
          for (int i = 0; i < rows; i++) edge_in[i] = 0.0;
        sweep_block(row, rows, width, grid, edge_in, source, dir);
        if (downstream >= 0 && downstream < size) {
          last_column(row, rows, width, grid, edge_out, dir);
          MPI_Send(edge_out, rows, MPI_DOUBLE, downstream, dir > 0 ? 1 : 2, MPI_COMM_WORLD);
        }
      }
    }
  }
  int sum = spmd_checksum(n, width, stride, first, grid);
  MPI_Finalize();
  return sum;
}
