// The proven-loops command (taint_proven.c) compiled as C++: the same shapes through the C++ front
// end (mangled names, C++ lowering, libm through <cmath>'s declarations), for the tests of issue 24's
// causes 5, 7 and 10.
#include "taint_proven.c"
