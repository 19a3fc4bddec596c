/*
 * A WASI command that marks its own parameter: taint_cmd N reads N from
 * argv, registers it with TAINTLENS_PARAM and runs a loop nest whose trip
 * counts depend on it, then prints the checksum.
 *
 *   for i < n:            n iterations            (depends on n)
 *     for j < 4:          4 per entry             (constant)
 *   for i < n:            n iterations            (depends on n)
 *     for j < i:          i per entry             (depends on n via i)
 */
#include <stdio.h>
#include <stdlib.h>

#include "taintlens.h"

__attribute__((noinline)) unsigned loop_nest(int n) {
  unsigned acc = 1;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) {
      acc = acc * 3u + (unsigned)(i + j);
    }
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      acc = acc * 5u + (unsigned)(i ^ j);
    }
  }
  return acc;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s N\n", argc > 0 ? argv[0] : "taint_cmd");
    return 2;
  }
  char *end;
  long value = strtol(argv[1], &end, 10);
  if (*argv[1] == '\0' || *end != '\0' || value < 0 || value > 1000000) {
    fprintf(stderr, "taint_cmd: invalid argument '%s'\n", argv[1]);
    return 2;
  }
  int n = (int)value;
  TAINTLENS_PARAM(n, "n");
  printf("%u\n", loop_nest(n));
  return 0;
}
