// Taint precision (issue 24, causes 5, 7 and 10) on a command, no marking in the source: argv words
// read with atoi/atof. Built at -O0 (locals and counters in the stack frame) and -O2 (counters in
// registers), see native/build.sh; native/src/taint_proven.cpp compiles it as C++.
//   - cause 5: loops whose trip count is a compile-time constant are proven so before the run, with
//     counters in memory as well as in registers, and a function made only of them is pruned;
//   - cause 7: one loop over a product of a parameter with itself (a flattened n*n*n grid) depends
//     on n three times, not once;
//   - cause 10: pow() and exp() are functional, as DFSan's ABI list declares them (the result
//     carries the arguments' labels), an (int) conversion of an out-of-range double keeps the
//     double's label, and a callee's stack stores do not take the caller's control label.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void constant_loops(int n) {
  for (int i = 0; i < 16; i++) sink += i;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) sink += i * j;
  for (int i = 0; i < n; i++) sink -= i;
}

__attribute__((noinline)) void only_constant(void) {
  for (int i = 0; i < 10; i++) sink += i;
  for (int i = 40; i > 0; i -= 4) sink -= i;
}

__attribute__((noinline)) void flattened(int n) {
  for (int i = 0; i < n * n * n; i++) sink += i;
}

__attribute__((noinline)) void flattened_pair(int n, int m) {
  for (int i = 0; i < n * m; i++) sink += i;
}

__attribute__((noinline)) void powered(int n, double g) {
  int bound = ((int)pow((double)n, exp(g)) & 7) + 20; // n^e^g out of int's range: INT_MIN
  for (int i = 0; i != bound; i++) sink += i;
}

__attribute__((noinline)) void converted(double huge) {
  int bound = ((int)huge & 7) + 20; // out of int's range: INT_MIN
  for (int i = 0; i != bound; i++) sink += i;
}

// Its loop is constant; its caller calls it under a branch on n.
__attribute__((noinline)) void fill(int *slots) {
  for (int i = 0; i < 8; i++) slots[i] = i;
}

__attribute__((noinline)) void under_branch(int n) {
  int slots[8];
  if (n > 3) fill(slots);
  for (int i = 0; i < 8; i++) sink += slots[i];
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: taint_proven n m g\n");
    return 1;
  }
  int n = atoi(argv[1]), m = atoi(argv[2]);
  double g = atof(argv[3]);
  constant_loops(n);
  only_constant();
  flattened(n);
  flattened_pair(n, m);
  powered(n, g);
  converted(pow(10.0, 20.0 + g));
  under_branch(n);
  printf("%ld\n", sink);
  return 0;
}
