/*
 * An element loop in the style of an unstructured-mesh proxy application (LULESH-like, written for
 * this project): a hexahedral mesh of n x n x n elements over (n+1)^3 nodes, advanced `steps` time
 * steps. Each step walks every element and, per element, calls small methods and accessors: node
 * list lookup, coordinate accessors, gathering the 8 corners, a volume and a characteristic length,
 * a pressure update through an equation of state, and the scatter of nodal forces. The helpers are
 * noinline (as they are across LULESH's translation units and at -O0), so the per-call cost of a
 * profiler shows. WASI reactor exporting `double run(int n, int steps)`.
 *
 * Cost per step: n^3 elements x (about 20 calls and a few hundred instructions).
 */
#include "kernel_support.h"
#include "taintlens.h"

#define NOINLINE __attribute__((noinline))

namespace {

struct Vec3 {
  double x, y, z;
};

class Mesh {
 public:
  Mesh(int edge) : edge_(edge), nodesPerEdge_(edge + 1) {
    const size_t nodes = (size_t)nodesPerEdge_ * nodesPerEdge_ * nodesPerEdge_;
    const size_t elems = (size_t)edge * edge * edge;
    x_ = static_cast<double *>(arena_alloc(sizeof(double) * nodes));
    y_ = static_cast<double *>(arena_alloc(sizeof(double) * nodes));
    z_ = static_cast<double *>(arena_alloc(sizeof(double) * nodes));
    fx_ = static_cast<double *>(arena_alloc(sizeof(double) * nodes));
    e_ = static_cast<double *>(arena_alloc(sizeof(double) * elems));
    p_ = static_cast<double *>(arena_alloc(sizeof(double) * elems));
    v_ = static_cast<double *>(arena_alloc(sizeof(double) * elems));
    nodelist_ = static_cast<int *>(arena_alloc(sizeof(int) * 8 * elems));
  }

  NOINLINE int numElem() const { return edge_ * edge_ * edge_; }
  NOINLINE int numNode() const { return nodesPerEdge_ * nodesPerEdge_ * nodesPerEdge_; }
  NOINLINE double &x(int node) { return x_[node]; }
  NOINLINE double &y(int node) { return y_[node]; }
  NOINLINE double &z(int node) { return z_[node]; }
  NOINLINE double &fx(int node) { return fx_[node]; }
  NOINLINE double &e(int elem) { return e_[elem]; }
  NOINLINE double &p(int elem) { return p_[elem]; }
  NOINLINE double &v(int elem) { return v_[elem]; }
  NOINLINE const int *nodelist(int elem) const { return &nodelist_[8 * elem]; }

  void build() {
    int elem = 0;
    for (int k = 0; k < edge_; k++)
      for (int j = 0; j < edge_; j++)
        for (int i = 0; i < edge_; i++, elem++) {
          int *corners = &nodelist_[8 * elem];
          const int base = (k * nodesPerEdge_ + j) * nodesPerEdge_ + i;
          corners[0] = base;
          corners[1] = base + 1;
          corners[2] = base + nodesPerEdge_ + 1;
          corners[3] = base + nodesPerEdge_;
          corners[4] = base + nodesPerEdge_ * nodesPerEdge_;
          corners[5] = corners[4] + 1;
          corners[6] = corners[4] + nodesPerEdge_ + 1;
          corners[7] = corners[4] + nodesPerEdge_;
        }
    int node = 0;
    for (int k = 0; k <= edge_; k++)
      for (int j = 0; j <= edge_; j++)
        for (int i = 0; i <= edge_; i++, node++) {
          x_[node] = i * 1.125 / edge_;
          y_[node] = j * 1.125 / edge_;
          z_[node] = k * 1.125 / edge_;
        }
    for (int i = 0; i < numElem(); i++) {
      e_[i] = (i == 0) ? 3.948746e+7 : 0.0;
      p_[i] = 0.0;
      v_[i] = 1.0;
    }
  }

 private:
  int edge_;
  int nodesPerEdge_;
  double *x_, *y_, *z_, *fx_, *e_, *p_, *v_;
  int *nodelist_;
};

NOINLINE void collectCorners(Mesh &mesh, const int *corners, Vec3 out[8]) {
  for (int c = 0; c < 8; c++) {
    const int node = corners[c];
    out[c].x = mesh.x(node);
    out[c].y = mesh.y(node);
    out[c].z = mesh.z(node);
  }
}

NOINLINE Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

NOINLINE double dot(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

NOINLINE Vec3 diff(const Vec3 &a, const Vec3 &b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

/* Volume of a hexahedron from three diagonal triple products (a simplified LULESH CalcElemVolume). */
NOINLINE double elemVolume(const Vec3 c[8]) {
  const Vec3 d60 = diff(c[6], c[0]);
  const Vec3 d14 = diff(c[1], c[4]);
  const Vec3 d25 = diff(c[2], c[5]);
  const Vec3 d43 = diff(c[4], c[3]);
  const double v1 = dot(d60, cross(d14, d25));
  const double v2 = dot(d60, cross(d43, d14));
  return (v1 + v2) * (1.0 / 12.0);
}

NOINLINE double charLength(const Vec3 c[8], double volume) {
  const Vec3 d = diff(c[6], c[0]);
  const double diag = dot(d, d);
  return volume / (diag > 1e-30 ? diag : 1e-30);
}

NOINLINE double eosPressure(double energy, double compression) {
  const double p = (2.0 / 3.0) * energy * compression;
  return p < 1e-7 ? 0.0 : p;
}

NOINLINE void scatterForce(Mesh &mesh, const int *corners, double force) {
  for (int c = 0; c < 8; c++) mesh.fx(corners[c]) += force * 0.125;
}

NOINLINE void updateElement(Mesh &mesh, int elem, double dt) {
  Vec3 corners[8];
  const int *list = mesh.nodelist(elem);
  collectCorners(mesh, list, corners);
  const double volume = elemVolume(corners);
  const double length = charLength(corners, volume);
  const double relative = volume / (mesh.v(elem) > 0 ? mesh.v(elem) : 1.0);
  mesh.p(elem) = eosPressure(mesh.e(elem), 1.0 / relative);
  mesh.e(elem) = mesh.e(elem) * 0.999 + dt * mesh.p(elem) * length;
  scatterForce(mesh, list, mesh.p(elem) * length);
}

NOINLINE void moveNodes(Mesh &mesh, double dt) {
  const int nodes = mesh.numNode();
  for (int i = 0; i < nodes; i++) {
    mesh.x(i) += dt * 1e-9 * mesh.fx(i);
    mesh.fx(i) = 0.0;
  }
}

NOINLINE void step(Mesh &mesh, double dt) {
  const int elems = mesh.numElem();
  for (int elem = 0; elem < elems; elem++) updateElement(mesh, elem, dt);
  moveNodes(mesh, dt);
}

}  // namespace

extern "C" double run(int n, int steps) {
  TAINTLENS_PARAM(n, "n");
  TAINTLENS_PARAM(steps, "steps");
  Mesh mesh(n);
  mesh.build();
  for (int t = 0; t < steps; t++) step(mesh, 1e-3);
  double sum = 0.0;
  for (int i = 0; i < mesh.numElem(); i++) sum += mesh.e(i) + mesh.p(i);
  return sum;
}
