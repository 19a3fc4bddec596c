/*
 * Helpers shared by the native kernels (header-only, everything inlines).
 *
 * - A bump allocator on top of memory.grow: the kernels never free memory,
 *   fresh pages are zero-initialised, and unlike malloc it adds no loops of
 *   its own to the binaries, so every loop in a reactor kernel is a kernel
 *   loop.
 * - The 32-bit LCG used by the AssemblyScript kernels (assembly/lcg.ts), so
 *   that ports compute bit-identical checksums.
 */
#ifndef KERNEL_SUPPORT_H
#define KERNEL_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#define WASM_PAGE_SIZE 65536u

static inline void *arena_alloc(size_t bytes) {
  size_t pages = (bytes + WASM_PAGE_SIZE - 1) / WASM_PAGE_SIZE;
  size_t old_pages = __builtin_wasm_memory_grow(0, pages);
  if (old_pages == (size_t)-1) __builtin_trap(); /* out of memory */
  return (void *)(old_pages * WASM_PAGE_SIZE);
}

static inline uint32_t lcg_next(uint32_t state) {
  return state * 1664525u + 1013904223u;
}

/* Upper 24 bits of the state as a double in [0, 1). */
static inline double lcg_unit(uint32_t state) {
  return (double)(state >> 8) * (1.0 / 16777216.0);
}

#endif /* KERNEL_SUPPORT_H */
