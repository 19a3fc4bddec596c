// Taint precision on unmodified programs (issue 24), as a command: argv words read with atoi, no
// marking in the source. Shaped like the failing cases:
//   - three short arguments side by side in memory (cause 8: their labels must stay apart);
//   - a function that returns early under a guard on a parameter, then runs constant loops and a
//     loop over another parameter (cause 1: LULESH's Comm* functions);
//   - a loop over a list whose nodes come from malloc after allocations of parameter-sized
//     buffers (cause 2: an allocator's address is not data derived from the requested size);
//   - a function reachable from main that does not run (cause 4: `executed` comes from the run).
// Built at -O0 (counters in memory) and -O2 (counters in registers), see native/build.sh.
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static int buffer[32];

__attribute__((noinline)) void nest(int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) sink += i ^ j;
}

__attribute__((noinline)) void single(int k) {
  for (int i = 0; i < k; i++) sink += i;
}

__attribute__((noinline)) void over_m(int m) {
  for (int i = 0; i < m; i++) sink -= i;
}

__attribute__((noinline)) void guarded(int ranks, int fields) {
  if (ranks == 1) return;
  for (int i = 0; i < 26; ++i) buffer[i] += i;
  for (int f = 0; f < fields; ++f) buffer[f] -= f;
}

// Statically reachable from main, never run with fewer than 9 arguments (cause 4).
__attribute__((noinline)) int rare(int n) { return n * 3 + 1; }

struct node { struct node *next; int value; };

__attribute__((noinline)) long walk_list(int n) {
  // Buffers of parameter-dependent size first: the allocator's state then follows n.
  int *scratch = (int *)malloc((size_t)n * sizeof *scratch);
  for (int i = 0; i < n; i++) scratch[i] = i;
  struct node *head = NULL;
  for (int i = 0; i < 6; i++) {
    struct node *fresh = (struct node *)malloc(sizeof *fresh);
    fresh->value = i;
    fresh->next = head;
    head = fresh;
  }
  long sum = scratch[n - 1];
  for (struct node *p = head; p != NULL; p = p->next) sum += p->value;
  while (head) { struct node *next = head->next; free(head); head = next; }
  free(scratch);
  return sum;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: taint_precision n m k ranks\n");
    return 1;
  }
  int n = atoi(argv[1]), m = atoi(argv[2]), k = atoi(argv[3]), ranks = atoi(argv[4]);
  nest(n, m);
  single(k);
  over_m(m);
  guarded(ranks, 3);
  sink += walk_list(n);
  if (argc > 9) sink += rare(n);
  printf("%ld\n", sink);
  return 0;
}
