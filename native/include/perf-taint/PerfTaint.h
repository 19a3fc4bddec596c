/* Perf-Taint's C marking API (include/perf-taint/PerfTaint.h of github.com/spcl/perf-taint) over
 * Taintlens's import, for Perf-Taint's own unit programs (native/build-perf-taint-units.sh). */
#ifndef TAINTLENS_PERF_TAINT_H
#define TAINTLENS_PERF_TAINT_H

#include <stddef.h>
#include "../taintlens.h"

#define EXTRAP __attribute__((annotate("extrap")))
#define VARIABLE_NAME(var) #var

static inline void perf_taint_register_variable(void *ptr, size_t size, const char *name) {
  taintlens_register_variable(ptr, (int32_t)size, name);
}

#endif
