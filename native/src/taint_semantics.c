/*
 * Kernels for Perf-Taint's semantics in the taint analysis (a WASI reactor).
 * Helpers have external linkage and are never inlined, so the compiler can
 * neither inline nor specialise them for constant arguments.
 *
 *   contexts(x1, x2)  the helper g is called as g(x1, x2) and as g(x1, 100),
 *                     both times from the same call site in h, reached via
 *                     two callers: g's loop depends on {x1, x2} on the path
 *                     contexts->via_a->h->g and on {x1} on contexts->via_b->h->g.
 *   fib(n)            recursion whose depth depends on n (no loop at all).
 *   remark(n)         marks a variable as "a", then marks it again as "b":
 *                     the second marking replaces the first, so the loop
 *                     over it depends on b only.
 *   two_exits(n, m)   a search loop with two exit conditions: the count
 *                     (on n) and a match of the table entry with m (on m).
 */
#include "taintlens.h"

#define NOINLINE __attribute__((noinline))

NOINLINE unsigned g(int p, int q) {
  unsigned acc = 1;
  for (int i = 0; i < p + q; i++) acc = acc * 3u + (unsigned)i;
  return acc;
}

NOINLINE unsigned h(int p, int q) { return g(p, q) * 7u + 1u; }
NOINLINE unsigned via_a(int x1, int x2) { return h(x1, x2); }
NOINLINE unsigned via_b(int x1) { return h(x1, 100); }

int contexts(int x1, int x2) {
  TAINTLENS_PARAM(x1, "x1");
  TAINTLENS_PARAM(x2, "x2");
  return (int)(via_a(x1, x2) ^ via_b(x1));
}

/* Two calls combined so that neither is a tail call or an accumulation:
 * the compiler keeps both recursive (no loop). */
NOINLINE unsigned fib_rec(unsigned n) {
  if (n < 2) return n;
  unsigned a = fib_rec(n - 1);
  unsigned b = fib_rec(n - 2);
  return (a * 31u) ^ (b * 3u);
}

int fib(int n) {
  TAINTLENS_PARAM(n, "n");
  return (int)fib_rec((unsigned)n);
}

int remark(int n) {
  volatile int v = n;
  TAINTLENS_PARAM(v, "a");
  TAINTLENS_PARAM(v, "b");
  unsigned acc = 1;
  for (int i = 0; i < v; i++) acc = acc * 3u + (unsigned)i;
  return (int)acc;
}

static int squares[64];

int two_exits(int n, int m) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(m, "m");
  for (int i = 0; i < 64; i++) squares[i] = i * i;
  int i = 0;
  for (; i < n && i < 64; i++) {
    if (squares[i] == m) break;
  }
  return i;
}
