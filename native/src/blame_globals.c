// Blame of C globals: a Jacobi sweep over a static grid (.bss) with a running histogram in an
// initialized static table (.data). Built with -g, blame names `grid` and `histogram` (DWARF
// .debug_info); without -g the same samples are "static data at 0x…".
// Usage: blame_globals N ITERS   (N <= 96)
#include <stdio.h>
#include <stdlib.h>

#define MAX_N 96

static double grid[MAX_N * MAX_N];
static double next[MAX_N * MAX_N];
static int histogram[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static void init(int n) {
  for (int i = 0; i < n * MAX_N; i++) grid[i] = (double)(i % 13);
}

static void sweep(int n) {
  for (int i = 1; i < n - 1; i++) {
    for (int j = 1; j < n - 1; j++) {
      next[i * MAX_N + j] = 0.25 * (grid[(i - 1) * MAX_N + j] + grid[(i + 1) * MAX_N + j] +
                                    grid[i * MAX_N + j - 1] + grid[i * MAX_N + j + 1]);
    }
  }
  for (int i = 1; i < n - 1; i++) {
    for (int j = 1; j < n - 1; j++) grid[i * MAX_N + j] = next[i * MAX_N + j];
  }
}

static void count(int n) {
  for (int i = 0; i < n; i++) histogram[(int)grid[i * MAX_N + i] & 15] += 1;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 3 || n > MAX_N || iters < 1) {
    fprintf(stderr, "usage: blame_globals N ITERS (3 <= N <= %d)\n", MAX_N);
    return 2;
  }
  init(n);
  for (int t = 0; t < iters; t++) {
    sweep(n);
    count(n);
  }
  printf("%f %d\n", grid[MAX_N + 1], histogram[3]);
  return 0;
}
