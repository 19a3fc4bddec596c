/*
 * Taintlens annotation API for C and C++ kernels compiled to WebAssembly.
 *
 *   int run(int n) {
 *     TAINTLENS_PARAM(n, "n");
 *     ...
 *   }
 *
 * TAINTLENS_PARAM registers the bytes of a variable with the host under a
 * parameter name by calling the import taintlens.register_variable(addr,
 * size, name), where name is a NUL-terminated UTF-8 string. Taking the
 * variable's address forces it into linear memory; since the host may write
 * it, every later use reloads the variable from the registered bytes, so a
 * taint analysis sees labelled loads. Hosts that do not analyse taint can
 * implement the import as a no-op.
 */
#ifndef TAINTLENS_H
#define TAINTLENS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((import_module("taintlens"), import_name("register_variable")))
void taintlens_register_variable(void *addr, int32_t size, const char *name);

#ifdef __cplusplus
}
#endif

/* Marks the variable `var` (an lvalue) as the input parameter `name`. */
#define TAINTLENS_PARAM(var, name) \
  taintlens_register_variable((void *)&(var), (int32_t)sizeof(var), (name))

/* Marks `size` bytes at `addr` (e.g. an input array) as the parameter `name`. */
#define TAINTLENS_PARAM_MEMORY(addr, size, name) \
  taintlens_register_variable((void *)(addr), (int32_t)(size), (name))

#endif /* TAINTLENS_H */
