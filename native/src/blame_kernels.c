/*
 * Kernels with a clear owner of the work, for variable blame (issue #14, docs/blame.md). Each
 * export is its own blame point; every array comes from malloc (wasi-libc's dlmalloc), so the
 * heap containers carry allocation call paths.
 *
 *   fill_then_produce(n)  fills a small input (n doubles) cheaply, then spends nearly all its time
 *                         producing a larger output (n*n doubles): the output owns the work.
 *   sparse_solve(n, it)   Gauss-Seidel sweeps on a sparse (CSR, 5 entries per row) system: the
 *                         matrix values are assembled with real work, the index arrays cheaply,
 *                         and the solution vector takes the iterations.
 *   through_callee(n, r)  the caller's buffer is written only by a callee through its pointer
 *                         parameter: the blame lands on the caller's variable.
 *   struct_fields(n, r)   a struct whose three fields point to arrays (as HPL's PANEL): the work
 *                         on the fields rolls up into the struct variable.
 *   decode_into(n, r)     a decoder (shaped like flite's G.721 one): a callee keeps its state on its
 *                         own stack, a quantizer's if chain feeds a void update that stores through
 *                         the state pointer; the work stays in the callee's frame, below the export.
 *   decode_indirect(n, r) the same decoder calling update through a function pointer (an indirect
 *                         call, as C++ virtual calls are): the callee is the one the run entered.
 *   histogram_chain(n, r) a histogram's bins chosen by a by-value chain (bin_of -> mix, each
 *                         returning its result) and passed to a void deposit that only indexes the
 *                         histogram with it: the chain's work belongs to the histogram it steers.
 */
#include <math.h>
#include <stdlib.h>

__attribute__((noinline)) double fill_then_produce(int n) {
  double *in = malloc(sizeof(double) * (size_t)n);
  double *out = malloc(sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n; i++) in[i] = (double)i * 0.5;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double acc = 0.0;
      for (int k = 0; k < 16; k++) acc += sqrt(in[i] * (double)k + in[j]);
      out[i * n + j] = acc;
    }
  }
  double sum = 0.0;
  for (int i = 0; i < n * n; i += n + 1) sum += out[i];
  free(in);
  free(out);
  return sum;
}

__attribute__((noinline)) double sparse_solve(int n, int iters) {
  int nnz = 5 * n;
  int *rowptr = malloc(sizeof(int) * (size_t)(n + 1));
  int *col = malloc(sizeof(int) * (size_t)nnz);
  double *val = malloc(sizeof(double) * (size_t)nnz);
  double *rhs = malloc(sizeof(double) * (size_t)n);
  double *x = malloc(sizeof(double) * (size_t)n);
  int k = 0;
  for (int i = 0; i < n; i++) {
    rowptr[i] = k;
    for (int d = -2; d <= 2; d++) {
      int j = (i + d + n) % n;
      col[k] = j;
      /* Assembly: a diagonally dominant entry computed from a small quadrature. */
      double w = 0.0;
      for (int q = 1; q <= 24; q++) w += exp(-(double)(q * (d * d + 1)) / 24.0) / (double)q;
      val[k] = d == 0 ? 8.0 + w : -w;
      k++;
    }
    rhs[i] = 1.0;
    x[i] = 0.0;
  }
  rowptr[n] = k;
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < n; i++) {
      double diag = 1.0, sum = rhs[i];
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++) {
        if (col[p] == i) diag = val[p];
        else sum -= val[p] * x[col[p]];
      }
      x[i] = sum / diag;
    }
  }
  double norm = 0.0;
  for (int i = 0; i < n; i++) norm += x[i];
  free(rowptr);
  free(col);
  free(val);
  free(rhs);
  free(x);
  return norm;
}

/* Writes through its pointer parameter only: its callers' variables own this work. */
__attribute__((noinline)) void smooth_into(double *target, int n, int rounds) {
  for (int r = 0; r < rounds; r++) {
    for (int i = 1; i < n - 1; i++) target[i] = 0.25 * target[i - 1] + 0.5 * target[i] + 0.25 * target[i + 1] + 1.0;
  }
}

__attribute__((noinline)) double through_callee(int n, int rounds) {
  double *field = malloc(sizeof(double) * (size_t)n);
  double *probe = malloc(sizeof(double) * 4);
  for (int i = 0; i < n; i++) field[i] = (double)(i % 7);
  for (int i = 0; i < 4; i++) probe[i] = (double)i;
  smooth_into(field, n, rounds);
  double sum = probe[1];
  for (int i = 0; i < n; i++) sum += field[i];
  free(field);
  free(probe);
  return sum;
}

typedef struct {
  double *l2;
  double *a;
  double *u;
  int n;
} Panel;

__attribute__((noinline)) Panel *make_panel(int n) {
  Panel *panel = malloc(sizeof(Panel));
  panel->n = n;
  panel->l2 = calloc((size_t)n, sizeof(double));
  panel->a = calloc((size_t)n, sizeof(double));
  panel->u = calloc((size_t)n, sizeof(double));
  return panel;
}

__attribute__((noinline)) void factor_panel(Panel *panel, int rounds) {
  int n = panel->n;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) panel->l2[i] = panel->l2[i] * 0.5 + sqrt((double)(i + r));
    for (int i = 0; i < n; i++) panel->a[i] = panel->a[i] * 0.25 + panel->l2[i];
    for (int i = 0; i < n; i++) panel->u[i] = panel->u[i] * 0.125 + panel->a[i] - panel->l2[i];
  }
}

__attribute__((noinline)) double struct_fields(int n, int rounds) {
  double *scratch = malloc(sizeof(double) * 8);
  for (int i = 0; i < 8; i++) scratch[i] = (double)i;
  Panel *panel = make_panel(n);
  factor_panel(panel, rounds);
  double sum = scratch[3];
  for (int i = 0; i < n; i++) sum += panel->u[i];
  free(panel->l2);
  free(panel->a);
  free(panel->u);
  free(panel);
  free(scratch);
  return sum;
}

/* A decoder's state, on the stack of the function that decodes a block. */
typedef struct {
  int dq[6];
  int sr;
} Decoder;

/* An if chain whose arms set a local the function's tail reads. */
__attribute__((noinline)) int quantize(int v) {
  int e;
  if (v < 4)
    e = v / 3;
  else if (v < 16)
    e = v / 5 + 1;
  else if (v < 64)
    e = v / 7 + 2;
  else if (v < 256)
    e = v / 11 + 3;
  else
    e = v / 13 + 4;
  return (v >> (e & 7)) * 3 + e;
}

/* Void: the value passed to it goes into the state its pointer parameter points to. */
__attribute__((noinline)) void update(Decoder *d, int i, int v) {
  d->dq[i % 6] = v;
  d->sr = d->sr / 2 + v;
}

__attribute__((noinline)) void decode_block(int *out, int n, int rounds) {
  Decoder d = {{0}, 0};
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) update(&d, i, quantize((i * 37 + r * 11 + d.sr) & 1023));
  out[0] = d.sr;
}

__attribute__((noinline)) double decode_into(int n, int rounds) {
  int *out = malloc(sizeof(int) * 4);
  decode_block(out, n, rounds);
  double result = out[0];
  free(out);
  return result;
}

/* Read through a volatile: the compiler cannot see which function the call reaches. */
typedef void (*Updater)(Decoder *, int, int);
static Updater volatile chosen_update = update;

__attribute__((noinline)) double decode_indirect(int n, int rounds) {
  Decoder d = {{0}, 0};
  Updater up = chosen_update;
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) up(&d, i, quantize((i * 37 + r * 11 + d.sr) & 1023));
  return d.sr;
}

/* A histogram in a heap struct: the bins array is a field. */
typedef struct {
  double *bins;
  int n;
} Histogram;

/* By value: scrambles an integer and returns it (most of the kernel's work). */
__attribute__((noinline)) unsigned mix(unsigned x) {
  for (int k = 0; k < 12; k++) {
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
  }
  return x;
}

/* By value: the bin a sample falls into, through mix. */
__attribute__((noinline)) int bin_of(int i, int r, int n) {
  return (int)(mix((unsigned)(i * 31 + r * 7)) % (unsigned)n);
}

/* Void: the bin only addresses the histogram; the weight goes into it. */
__attribute__((noinline)) void deposit(Histogram *h, int bin, double weight) {
  h->bins[bin] += weight;
}

__attribute__((noinline)) double histogram_chain(int n, int rounds) {
  Histogram *hist = malloc(sizeof(Histogram));
  hist->n = n;
  hist->bins = calloc((size_t)n, sizeof(double));
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) deposit(hist, bin_of(i, r, n), 1.0);
  double peak = 0.0;
  for (int i = 0; i < n; i++) peak = hist->bins[i] > peak ? hist->bins[i] : peak;
  free(hist->bins);
  free(hist);
  return peak;
}
