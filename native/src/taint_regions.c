// Counters indexed by a value (issue 24, cause 3), shaped like LULESH's CreateRegionIndexSets, as a
// command: argv words read with atoi, no marking in the source. Each element is assigned a region
// by a value of its own (a draw from rand(), as LULESH draws it), the elements of each region are
// counted with `count[region]++` in a loop over the elements, and then each region runs a loop to
// its count. The counts are what the region numbers made them: the per-region loops depend on the
// number of regions, not on the number of elements (the element loops do).
// Built at -O0 (counters in memory) and -O2 (counters in registers), see native/build.sh;
// native/src/taint_regions.cpp is the same in C++ with std::vector.
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void assign_regions(int *region_of, int elems, int regions) {
  for (int e = 0; e < elems; e++) {
    int reg_num = rand() % regions;
    region_of[e] = reg_num;
  }
}

__attribute__((noinline)) void count_elements(int *reg_elem_size, const int *region_of, int elems) {
  for (int e = 0; e < elems; e++) {
    int reg_num = region_of[e];
    reg_elem_size[reg_num]++;
  }
}

__attribute__((noinline)) void region_work(const int *reg_elem_size, int r) {
  for (int i = 0; i < reg_elem_size[r]; i++) sink += i;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fputs("usage: taint_regions elements regions\n", stderr);
    return 1;
  }
  int elems = atoi(argv[1]), regions = atoi(argv[2]);
  // No early return on a bad value: a guard returning early is issue 24's cause 1, not this one.
  if (elems < 1) elems = 1;
  if (regions < 1) regions = 1;
  int *region_of = malloc((size_t)elems * sizeof *region_of);
  int *reg_elem_size = malloc((size_t)regions * sizeof *reg_elem_size);
  if (!region_of || !reg_elem_size) return 1;
  for (int r = 0; r < regions; r++) reg_elem_size[r] = 0; // as LULESH zeroes regElemSize after new[]
  assign_regions(region_of, elems, regions);
  count_elements(reg_elem_size, region_of, elems);
  for (int r = 0; r < regions; r++) region_work(reg_elem_size, r);
  free(reg_elem_size);
  free(region_of);
  return 0;
}
