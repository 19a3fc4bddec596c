// 3-D 7-point Jacobi stencil on a size^3 grid with fixed (Dirichlet)
// boundary, written in C++ (templates, classes, no exceptions). WASI reactor
// exporting `double run(int size, int iters)`; computes the same checksum as
// assembly/kernels/stencil.ts.
//
// Cost: (size-2)^3 * iters point updates, i.e. O(size^3 * iters).

#include "kernel_support.h"
#include "taintlens.h"

namespace {

// A cubic grid of T stored contiguously, x fastest.
template <typename T>
class Grid3 {
 public:
  explicit Grid3(int size)
      : size_(size), data_(static_cast<T *>(arena_alloc(sizeof(T) * static_cast<size_t>(size) * size * size))) {}

  int size() const { return size_; }
  int count() const { return size_ * size_ * size_; }
  T &operator[](int index) { return data_[index]; }
  const T &operator[](int index) const { return data_[index]; }

  friend void swap(Grid3 &a, Grid3 &b) {
    T *data = a.data_;
    a.data_ = b.data_;
    b.data_ = data;
  }

 private:
  int size_;
  T *data_;
};

// Fills the grid with pseudo-random values in [0, 1).
template <typename T>
__attribute__((noinline)) void fillGrid(Grid3<T> &grid, uint32_t seed) {
  uint32_t state = seed;
  const int count = grid.count();
  for (int i = 0; i < count; i++) {
    state = lcg_next(state);
    grid[i] = static_cast<T>(lcg_unit(state));
  }
}

// One Jacobi sweep over the interior points: dst = weighted average of src.
template <typename T>
__attribute__((noinline)) void jacobiSweep(const Grid3<T> &src, Grid3<T> &dst) {
  const int size = src.size();
  const int plane = size * size;
  for (int z = 1; z < size - 1; z++) {
    for (int y = 1; y < size - 1; y++) {
      for (int x = 1; x < size - 1; x++) {
        const int c = z * plane + y * size + x;
        const T neighbours = src[c - 1] + src[c + 1] + src[c - size] + src[c + size] +
                             src[c - plane] + src[c + plane];
        dst[c] = T(0.4) * src[c] + T(0.1) * neighbours;
      }
    }
  }
}

// Position-weighted sum of the grid.
template <typename T>
__attribute__((noinline)) T checksum(const Grid3<T> &grid) {
  T sum = 0;
  const int count = grid.count();
  for (int i = 0; i < count; i++) {
    sum += grid[i] * static_cast<T>((i % 5) + 1);
  }
  return sum;
}

}  // namespace

extern "C" double run(int size, int iters) {
  TAINTLENS_PARAM(size, "size");
  TAINTLENS_PARAM(iters, "iters");
  Grid3<double> src(size);
  Grid3<double> dst(size);
  // Both grids start identical so that the boundary stays fixed.
  fillGrid(src, 7);
  fillGrid(dst, 7);
  for (int it = 0; it < iters; it++) {
    jacobiSweep(src, dst);
    swap(src, dst);
  }
  return checksum(src);
}
