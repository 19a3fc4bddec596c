// Perf-Taint's marking API (include/perf-taint/PerfTaint.hpp of github.com/spcl/perf-taint) over
// Taintlens's import, so Perf-Taint's own unit programs build unchanged for wasm32-wasi
// (native/build-perf-taint-units.sh). Only marking is provided: the label queries of Perf-Taint's
// api/ tests (has_label, delete_label) have no Taintlens counterpart.
#ifndef TAINTLENS_PERF_TAINT_HPP
#define TAINTLENS_PERF_TAINT_HPP

#include "../taintlens.h"

#define EXTRAP __attribute__((annotate("extrap")))
#define VARIABLE_NAME(var) #var

namespace perf_taint {

template <typename T> void register_variable(T *ptr, const char *name) {
  taintlens_register_variable(static_cast<void *>(ptr), static_cast<int32_t>(sizeof(T)), name);
}

} // namespace perf_taint

#endif
