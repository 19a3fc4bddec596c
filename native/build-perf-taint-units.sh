#!/usr/bin/env bash
# Builds Perf-Taint's own unit programs (tests/unit of https://github.com/spcl/perf-taint), unchanged,
# for wasm32-wasi with Perf-Taint's compile flags, and writes them to native/wasm/perf-taint/
# (committed; their sources never are):
#
#   native/build-perf-taint-units.sh PERF_TAINT_DIR
#
# PERF_TAINT_DIR is a checkout of Perf-Taint (tests/unit at its top). This script fetches nothing.
# Perf-Taint's lit configuration (tests/lit.cfg.in) compiles with `-g -O2 -mllvm -disable-llvm-optzns`:
# clang's -O2 front end with no IR optimisation, so every local and loop counter stays in the
# stack frame in memory. Its marking API comes from native/include/perf-taint/ (register_variable
# over taintlens.register_variable); MPI units build against native/include/mpi.h. The api/ units
# query and delete labels (no Taintlens counterpart, no expected output) and openmp/ needs OpenMP:
# both are left out, as is mpi/delete_label_implicit (no expected output).
# Objects are linked without -O (the clang driver would run wasm-opt, which strips the name section).
# Requirements: clang-14, lld-14, wasi-libc, libc++-14-dev-wasm32, libc++abi-14-dev-wasm32.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 PERF_TAINT_DIR" >&2
  exit 2
fi
units="$(cd "$1" && pwd)/tests/unit"
[[ -d "$units/dataflow" ]] || { echo "$0: $units/dataflow not found" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/wasm/perf-taint"
CLANG="${CLANG:-clang-14}"
CLANGXX="${CLANGXX:-clang++-14}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

flags=(--target=wasm32-wasi -g -O2 -mllvm -disable-llvm-optzns -I "$here/include" -fdebug-prefix-map="$units/=")

# build NAME SOURCE...: compile each source with Perf-Taint's flags, link them into NAME.wasm.
build() {
  local name="$1"
  shift
  local objects=() source object compiler
  for source in "$@"; do
    object="$tmp/$name.$(basename "$source").o"
    case "$source" in
      *.cpp) "$CLANGXX" "${flags[@]}" -fno-exceptions -c "$source" -o "$object" ;;
      *.c) "$CLANG" "${flags[@]}" -c "$source" -o "$object" ;;
    esac
    objects+=("$object")
  done
  compiler="$CLANG"
  [[ "$*" == *.cpp* ]] && compiler="$CLANGXX"
  "$compiler" --target=wasm32-wasi -Wl,--strip-debug "${objects[@]}" -o "$out/$name.wasm"
  printf '  %-44s %7d bytes\n' "native/wasm/perf-taint/$name.wasm" "$(wc -c < "$out/$name.wasm")"
}

echo "Building Perf-Taint's unit programs with $("$CLANG" --version | head -n 1)"
for dir in control-flow dataflow mpi; do
  for source in "$units/$dir"/*.cpp "$units/$dir"/*.c; do
    [[ -f "$source" && -f "$source.json" ]] || continue # units with Perf-Taint's expected output
    name="$(basename "$source")"
    build "${dir}_${name%.*}" "$source"
  done
done
build dataflow_bug_static_functions "$units/dataflow/bug_static_functions/main.c" \
  "$units/dataflow/bug_static_functions/helpers/test.c" "$units/dataflow/bug_static_functions/helpers/test2.c"
