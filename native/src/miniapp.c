/*
 * A LULESH-spirited hydrodynamics mini-app on a size^3 cube of elements: a C
 * port of assembly/kernels/miniapp.ts that computes the identical checksum.
 *
 * Built twice by native/build.sh:
 *   miniapp.wasm          WASI reactor exporting
 *                         double run(int size, int iters, int regions,
 *                                    int balance, int cost)
 *   miniapp_cmd.wasm      WASI command (-DMINIAPP_COMMAND):
 *                         miniapp_cmd SIZE ITERS REGIONS BALANCE COST
 *                         prints the checksum with printf("%.17g\n")
 *
 * size, iters, regions and cost drive loop trip counts; balance only feeds
 * floating point arithmetic (see docs/kernels.md).
 */
#include <math.h>

#include "kernel_support.h"
#include "taintlens.h"

#define GAMMA 1.4
#define V_MIN 0.1
#define P_MIN 1e-9
#define DT_MAX 1e-2

typedef struct {
  int size;
  int num_elem;
  double *e;     /* specific internal energy */
  double *p;     /* pressure */
  double *q;     /* artificial viscosity */
  double *v;     /* relative volume */
  double *delv;  /* volume change of the last step */
  double *ss;    /* sound speed */
  double *force;
} Domain;

static inline double max_f64(double a, double b) { return a > b ? a : b; }
static inline double min_f64(double a, double b) { return a < b ? a : b; }

/* Sedov-like initial state: a blast of energy in the corner element. */
__attribute__((noinline)) void init_domain(Domain *d) {
  int size = d->size;
  uint32_t state = 1;
  for (int z = 0; z < size; z++) {
    for (int y = 0; y < size; y++) {
      for (int x = 0; x < size; x++) {
        int i = (z * size + y) * size + x;
        state = lcg_next(state);
        double energy = 0.5 + lcg_unit(state) + (i == 0 ? 10.0 : 0.0);
        d->e[i] = energy;
        d->v[i] = 1.0;
        d->p[i] = (GAMMA - 1.0) * energy;
        d->q[i] = 0.0;
        d->ss[i] = sqrt(GAMMA * (GAMMA - 1.0) * energy);
      }
    }
  }
}

/* Net pressure force on every element from its six face neighbours. */
__attribute__((noinline)) void compute_forces(Domain *d) {
  int size = d->size;
  int plane = size * size;
  const double *p = d->p;
  const double *q = d->q;
  for (int z = 0; z < size; z++) {
    for (int y = 0; y < size; y++) {
      for (int x = 0; x < size; x++) {
        int i = (z * size + y) * size + x;
        /* Missing neighbours at the boundary mirror the element itself. */
        int xm = x > 0 ? i - 1 : i, xp = x < size - 1 ? i + 1 : i;
        int ym = y > 0 ? i - size : i, yp = y < size - 1 ? i + size : i;
        int zm = z > 0 ? i - plane : i, zp = z < size - 1 ? i + plane : i;
        double own = p[i] + q[i];
        double f = 0.0;
        f += p[xm] + q[xm] - own;
        f += p[xp] + q[xp] - own;
        f += p[ym] + q[ym] - own;
        f += p[yp] + q[yp] - own;
        f += p[zm] + q[zm] - own;
        f += p[zp] + q[zp] - own;
        d->force[i] = f;
      }
    }
  }
}

/* Moves the elements: volume change from the forces, energy from p dV work. */
__attribute__((noinline)) void integrate(Domain *d, double dt) {
  for (int i = 0; i < d->num_elem; i++) {
    double delv = -0.05 * dt * d->force[i];
    double v = max_f64(d->v[i] + delv, V_MIN);
    double q = 0.5 * fabs(delv) * d->ss[i];
    double work = (d->p[i] + q) * delv;
    d->delv[i] = delv;
    d->v[i] = v;
    d->q[i] = q;
    d->e[i] = max_f64(d->e[i] - work, P_MIN);
  }
}

/* Equation of state, region by region. Region r owns the elements
 * [num_elem * r / regions, num_elem * (r + 1) / regions) and repeats the
 * evaluation `cost` times. */
__attribute__((noinline)) void update_regions(Domain *d, int regions, int cost, double balance_weight) {
  int num_elem = d->num_elem;
  for (int r = 0; r < regions; r++) {
    int begin = (int)(((int64_t)num_elem * r) / regions);
    int end = (int)(((int64_t)num_elem * (r + 1)) / regions);
    double region_stiffness = 1e-3 * (double)(r + 1) * balance_weight;
    for (int rep = 0; rep < cost; rep++) {
      for (int i = begin; i < end; i++) {
        double v = d->v[i];
        double compression = 1.0 / v - 1.0;
        double pressure = max_f64((GAMMA - 1.0) * d->e[i] / v + region_stiffness * compression, P_MIN);
        d->p[i] = pressure;
        d->ss[i] = sqrt(GAMMA * pressure * v);
      }
    }
  }
}

/* Courant-limited time step for the next cycle. */
__attribute__((noinline)) double compute_time_step(const Domain *d) {
  double dt = DT_MAX;
  for (int i = 0; i < d->num_elem; i++) {
    dt = min_f64(dt, 0.1 / (d->ss[i] + 1e-6));
  }
  return dt;
}

/* Total energy (internal + pressure-volume) as the result checksum. */
__attribute__((noinline)) double reduce(const Domain *d) {
  double sum = 0.0;
  for (int i = 0; i < d->num_elem; i++) {
    sum += d->e[i] + d->p[i] * d->v[i];
  }
  return sum;
}

__attribute__((noinline)) double run(int size, int iters, int regions, int balance, int cost) {
  TAINTLENS_PARAM(size, "size");
  TAINTLENS_PARAM(iters, "iters");
  TAINTLENS_PARAM(regions, "regions");
  TAINTLENS_PARAM(balance, "balance");
  TAINTLENS_PARAM(cost, "cost");
  double balance_weight = 1.0 + 0.25 * (double)balance;
  Domain d;
  d.size = size;
  d.num_elem = size * size * size;
  size_t bytes = sizeof(double) * (size_t)d.num_elem;
  d.e = arena_alloc(bytes);
  d.p = arena_alloc(bytes);
  d.q = arena_alloc(bytes);
  d.v = arena_alloc(bytes);
  d.delv = arena_alloc(bytes);
  d.ss = arena_alloc(bytes);
  d.force = arena_alloc(bytes);
  init_domain(&d);
  double dt = DT_MAX;
  for (int it = 0; it < iters; it++) {
    compute_forces(&d);
    integrate(&d, dt);
    update_regions(&d, regions, cost, balance_weight);
    dt = compute_time_step(&d);
  }
  return reduce(&d);
}

#ifdef MINIAPP_COMMAND
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s SIZE ITERS REGIONS BALANCE COST\n", argc > 0 ? argv[0] : "miniapp");
    return 2;
  }
  int args[5];
  for (int k = 0; k < 5; k++) {
    char *end;
    long value = strtol(argv[k + 1], &end, 10);
    if (*argv[k + 1] == '\0' || *end != '\0' || value < 0 || value > 1000000) {
      fprintf(stderr, "miniapp: invalid argument '%s'\n", argv[k + 1]);
      return 2;
    }
    args[k] = (int)value;
  }
  printf("%.17g\n", run(args[0], args[1], args[2], args[3], args[4]));
  return 0;
}
#endif
