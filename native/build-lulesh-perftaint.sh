#!/usr/bin/env bash
# Builds LULESH 2.0 as Perf-Taint analyses it (docs/lulesh.md), for wasm32-wasi, into native/wasm/:
#
#   native/build-lulesh-perftaint.sh LULESH_DIR
#
#   LULESH_DIR  a checkout of https://github.com/LLNL/LULESH at the commit Perf-Taint pins
#               (spcl/perf-taint benchmarks/lulesh: b56882ba0c1b972631e1e54a8256d2a07893e324);
#               it is copied, never modified.
#
# The six parameters are marked where Perf-Taint's patch (benchmarks/lulesh/lulesh_full.patch)
# marks them: right after ParseCommandLineOptions, with TAINTLENS_PARAM from native/include/
# taintlens.h in place of perf_taint::register_variable (iters, cost, balance, size, regions, p, in
# the patch's order). The script inserts those lines into the copy; nothing else changes.
#
# Two builds of each of serial (-DUSE_MPI=0) and MPI (-DUSE_MPI=1, native/include/mpi.h):
#   lulesh_pt_flags_{serial,mpi}.wasm  Perf-Taint's compile line taken literally
#       (-fno-inline-functions -O2 -mllvm -disable-llvm-optzns -g): no IR optimisation, so every
#       local and loop counter lives in the stack frame in linear memory.
#   lulesh_pt_ir_{serial,mpi}.wasm     the IR Perf-Taint's pass analyses: the same compile line to
#       bitcode, then the passes PerfTaintPass::runOnModule runs before instrumenting
#       (lib/llvm-pass/PerfTaintPass.cpp: instnamer, correlated-propagation, mem2reg,
#       loop-simplify), then code generation at -O0 as Perf-Taint's bin/perf-taint compiles the
#       instrumented IR (clang -c -x ir, no -O), so nothing rewrites the loops after the passes.
# Both link without -O (the clang driver would run wasm-opt) and without debug info (the name
# section stays: function names are what the report compares).
# This script fetches nothing. Requirements: clang-14, lld-14, opt-14, wasi-libc,
# libc++-14-dev-wasm32, libc++abi-14-dev-wasm32.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 LULESH_DIR" >&2
  exit 2
fi
src="$(cd "$1" && pwd)"
[[ -f "$src/lulesh.cc" ]] || { echo "$0: $src/lulesh.cc not found" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/wasm"
CLANGXX="${CLANGXX:-clang++-14}"
OPT="${OPT:-opt-14}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The marked copy: the six register calls after the options are parsed, the header at the top.
cp "$src"/lulesh*.cc "$src"/lulesh*.h "$tmp/"
anchor='ParseCommandLineOptions(argc, argv, myRank, &opts);'
[[ $(grep -cF "$anchor" "$tmp/lulesh.cc") -eq 1 ]] || { echo "$0: $src/lulesh.cc: '$anchor' not found once" >&2; exit 2; }
marks='   TAINTLENS_PARAM(opts.its, "iters"); TAINTLENS_PARAM(opts.cost, "cost"); TAINTLENS_PARAM(opts.balance, "balance"); TAINTLENS_PARAM(opts.nx, "size"); TAINTLENS_PARAM(opts.numReg, "regions"); TAINTLENS_PARAM(numRanks, "p");'
awk -v anchor="$anchor" -v marks="$marks" 'BEGIN { print "#include \"taintlens.h\"" }
  { print } index($0, anchor) { print marks }' "$src/lulesh.cc" > "$tmp/lulesh.cc"

# -ffile-prefix-map: __FILE__ (LULESH's error messages) names lulesh.cc, not the temporary copy, so builds are byte-identical.
line=(-fno-exceptions -fno-inline-functions -O2 -mllvm -disable-llvm-optzns -g -I "$tmp" -I "$here/include" -Wall -ffile-prefix-map="$tmp/"=)
sources=(lulesh.cc lulesh-comm.cc lulesh-viz.cc lulesh-util.cc lulesh-init.cc)

# build NAME MODE DEFINE: MODE flags (objects straight from the compile line) or ir (bitcode,
# Perf-Taint's pre-passes, -O0 code generation).
build() {
  local name="$1" mode="$2" define="$3" dir="$tmp/$1" objects=()
  mkdir -p "$dir"
  for source in "${sources[@]}"; do
    local base="$dir/${source%.cc}"
    if [[ "$mode" == flags ]]; then
      "$CLANGXX" --target=wasm32-wasi "${line[@]}" "$define" -c "$tmp/$source" -o "$base.o"
    else
      "$CLANGXX" --target=wasm32-wasi "${line[@]}" "$define" -emit-llvm -c "$tmp/$source" -o "$base.bc"
      "$OPT" -passes='function(instnamer,correlated-propagation,mem2reg,loop-simplify)' "$base.bc" -o "$base.pre.bc"
      "$CLANGXX" --target=wasm32-wasi -c -x ir "$base.pre.bc" -o "$base.o"
    fi
    objects+=("$base.o")
  done
  "$CLANGXX" --target=wasm32-wasi -Wl,--strip-debug "${objects[@]}" -o "$out/$name.wasm"
  echo "$out/$name.wasm: $(wc -c < "$out/$name.wasm") bytes"
}

build lulesh_pt_flags_serial flags -DUSE_MPI=0
build lulesh_pt_flags_mpi flags -DUSE_MPI=1
build lulesh_pt_ir_serial ir -DUSE_MPI=0
build lulesh_pt_ir_mpi ir -DUSE_MPI=1
