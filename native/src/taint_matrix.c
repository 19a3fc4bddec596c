/*
 * The taint test matrix: every loop shape compilers emit, built by
 * native/build.sh at -O0, -O1, -O2 and -O2 -fno-unroll-loops into
 * native/wasm/taint_matrix_<level>.wasm (a WASI reactor exporting `run`).
 * test/taint/matrix.test.ts holds the dependencies expected from this source,
 * which must hold at every level.
 *
 * Every case is a separate function with external linkage that is never
 * inlined (so the compiler can neither inline nor specialise it); loop bodies
 * write a volatile so no loop is deleted or replaced by a closed form.
 */
#include "taintlens.h"

#define NOINLINE __attribute__((noinline))

volatile int vsink;
volatile int vzero = 0;
volatile double vscale = 1e12;
int table[64];

/* A constant loop called after parameter-dependent control flow: must stay constant. */
NOINLINE int const_loop(void) {
  int acc = 0;
  for (int i = 0; i < 10; i++) vsink = acc += i;
  return acc;
}

NOINLINE int for_loop(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) vsink = acc += i;
  return acc;
}

NOINLINE int while_loop(int m) {
  int i = 0;
  while (i < m) {
    vsink = i;
    i++;
  }
  return i;
}

NOINLINE int do_while(int k) {
  int i = 0;
  do {
    vsink = i;
  } while (++i < k);
  return i;
}

/* while (1) with the break at the top, then a constant loop in a callee. */
NOINLINE int break_top(int n) {
  int i = 0;
  while (1) {
    if (i >= n) break;
    vsink = i;
    i++;
  }
  return i + const_loop();
}

NOINLINE int break_middle(int m) {
  int i = 0;
  while (1) {
    vsink = i;
    if (i >= m) break;
    vsink = -i;
    i++;
  }
  return i;
}

NOINLINE int break_bottom(int k) {
  int i = 0;
  while (1) {
    vsink = i;
    i++;
    if (i >= k) break;
  }
  return i;
}

/* Two exits with different parameters. */
NOINLINE int multi_exit(int n, int m) {
  int i;
  for (i = 0; i < n; i++) {
    if (i * 3 >= m) break;
    vsink = i;
  }
  return i;
}

/* A search loop that returns from its body. */
NOINLINE int search_return(int n, int m) {
  for (int i = 0; i < n; i++) {
    if (table[i] == m) return i;
    vsink = i;
  }
  return -1;
}

NOINLINE int goto_loop(int k) {
  int i = 0;
top:
  if (i >= k) goto done;
  vsink = i;
  i++;
  goto top;
done:
  return i;
}

/* Three loops after one another: siblings, not a nest. */
NOINLINE int sequential(int n, int m, int k) {
  int acc = 0;
  for (int i = 0; i < n; i++) vsink = acc += i;
  for (int j = 0; j < m; j++) vsink = acc ^= j;
  for (int l = 0; l < k; l++) vsink = acc -= l;
  return acc;
}

/* The inner loop's second exit jumps to the outer loop's header. */
NOINLINE int nested_jump(int n, int m) {
  int i = 0;
  int acc = 0;
outer:
  while (i < n) {
    i++;
    for (int j = 0; j < m; j++) {
      vsink = acc += j;
      if (j == 2) goto outer;
    }
    vsink = -acc;
  }
  return acc;
}

/* Called with a zero that carries n: the exit condition is tested once (or the loop is skipped). */
NOINLINE int never_iterates(int zero) {
  int acc = 0;
  for (int i = 0; i < zero; i++) vsink = acc += i;
  return acc;
}

/* An if/else diamond on c before a call: the call's constant loop must not depend on c. */
NOINLINE int diamond_call(int c) {
  int x;
  if (c > 5) {
    x = 1;
    vsink = 1;
  } else {
    x = 2;
    vsink = 2;
  }
  return x + const_loop();
}

/* (int)double out of range: the result is the constant the range check picks; it still depends on n. */
NOINLINE int float_out_of_range(int n) {
  double d = (double)n * vscale;
  int k = (int)d;
  unsigned bound = ((unsigned)k >> 29) + 3u;
  int acc = 0;
  for (unsigned i = 0; i < bound; i++) vsink = acc += (int)i;
  return acc;
}

NOINLINE int float_in_range(int m) {
  double d = (double)m * 1.5;
  int k = (int)d;
  int acc = 0;
  for (int i = 0; i < k; i++) vsink = acc += i;
  return acc;
}

/* A switch inside a loop, one case leaving the loop. */
NOINLINE int switch_loop(int n, int m) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    switch (i & 3) {
      case 0: acc += 1; break;
      case 1: acc *= 3; break;
      case 2: acc ^= i; break;
      default:
        if (acc > m) return acc;
        break;
    }
    vsink = acc;
  }
  return acc;
}

int run(int n, int m, int k, int c) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(m, "m");
  TAINTLENS_PARAM(k, "k");
  TAINTLENS_PARAM(c, "c");
  for (int i = 0; i < 64; i++) table[i] = 2 * i;
  int r = 0;
  r += for_loop(n);
  r += while_loop(m);
  r += do_while(k);
  r += break_top(n);
  r += break_middle(m);
  r += break_bottom(k);
  r += multi_exit(n, m);
  r += search_return(n, m);
  r += goto_loop(k);
  r += sequential(n, m, k);
  r += nested_jump(n, m);
  r += never_iterates(n * vzero);
  r += diamond_call(c);
  r += float_out_of_range(n);
  r += float_in_range(m);
  r += switch_loop(n, m);
  return r;
}
