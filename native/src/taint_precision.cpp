// The taint-precision command (taint_precision.c) compiled as C++: the same shapes through the C++
// front end (mangled names, C++ lowering), for the per-cause tests of issue 24.
#include "taint_precision.c"
