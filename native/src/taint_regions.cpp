// Counters indexed by a value (issue 24, cause 3) in C++, shaped like LULESH's CreateRegionIndexSets,
// as a command: argv words read with atoi, no marking in the source. Each element is assigned a
// region by a value of its own (a draw from rand(), as LULESH draws it), the elements of each region
// are counted with `regElemSize[regNum]++` in a std::vector, and each region runs a loop to its
// count. The per-region loops depend on the number of regions, not on the number of elements (the
// element loops do). Built at -O0 (counters in memory, operator[] a call) and -O2 (counters in
// registers), see native/build.sh; native/src/taint_regions.c is the same in C.
#include <cstdio>
#include <cstdlib>
#include <vector>

static volatile long sink;

// The element loops run to the element count, as LULESH's run to numElem().
__attribute__((noinline)) void assign_regions(std::vector<int> &regNumList, int elems, int regions) {
  for (int e = 0; e < elems; e++) {
    int regNum = std::rand() % regions;
    regNumList[e] = regNum;
  }
}

__attribute__((noinline)) void count_elements(std::vector<int> &regElemSize, const std::vector<int> &regNumList,
                                              int elems) {
  for (int e = 0; e < elems; e++) {
    int regNum = regNumList[e];
    regElemSize[regNum]++;
  }
}

__attribute__((noinline)) void region_work(const std::vector<int> &regElemSize, int r) {
  for (int i = 0; i < regElemSize[r]; i++) sink += i;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fputs("usage: taint_regions elements regions\n", stderr);
    return 1;
  }
  int elems = std::atoi(argv[1]), regions = std::atoi(argv[2]);
  // No early return on a bad value: a guard returning early is issue 24's cause 1, not this one.
  if (elems < 1) elems = 1;
  if (regions < 1) regions = 1;
  std::vector<int> regNumList(elems);
  std::vector<int> regElemSize(regions);
  assign_regions(regNumList, elems, regions);
  count_elements(regElemSize, regNumList, elems);
  for (int r = 0; r < regions; r++) region_work(regElemSize, r);
  return 0;
}
