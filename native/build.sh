#!/usr/bin/env bash
# Builds the native (C/C++) kernels to WebAssembly (wasm32-wasi) and writes
# them to native/wasm/, where they are committed: tests never need clang.
#
# Requirements (Debian): clang-14, lld-14 (wasm-ld-14), wasi-libc; node for
# the name-section check. Override the compiler with CLANG=..., and pass a
# non-default WASI sysroot with WASI_SYSROOT=... .
#
# Objects are compiled with -O2 and linked in a separate step without -O:
# the clang driver runs wasm-opt (if found in PATH) after an optimizing link,
# which would inline functions and strip the name section.
#
# Flags beyond -O2 keep the loops of the binary in 1:1 correspondence with the
# source loops: -fno-unroll-loops (no full/partial/runtime unrolling, no
# interleaving), -fno-vectorize and -fno-slp-vectorize. The third-party-style
# memory-bound kernels (PolyBench-like, built with `build_plain`) use plain -O2
# instead, as their authors would: the compiler unrolls and rotates freely.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/src"
out="$here/wasm"
CLANG="${CLANG:-clang-14}"

common=(--target=wasm32-wasi -O2 -Wall -Wextra -Werror -I "$here/include")
one_to_one=(-fno-unroll-loops -fno-vectorize -fno-slp-vectorize)
loopflags=("${one_to_one[@]}")
if [[ -n "${WASI_SYSROOT:-}" ]]; then
  common+=(--sysroot "$WASI_SYSROOT")
fi
cflags=(-std=c11)
cxxflags=(-std=c++17 -fno-exceptions -fno-rtti)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# compile SOURCE OBJECT [EXTRA_FLAGS...]
compile() {
  local source="$1" object="$2"
  shift 2
  case "$source" in
    *.c) "$CLANG" "${common[@]}" ${loopflags[@]+"${loopflags[@]}"} "${cflags[@]}" "$@" -c "$source" -o "$object" ;;
    *.cpp) "$CLANG" -x c++ "${common[@]}" ${loopflags[@]+"${loopflags[@]}"} "${cxxflags[@]}" "$@" -c "$source" -o "$object" ;;
    *) echo "unknown source type: $source" >&2; return 1 ;;
  esac
}

# link OBJECT OUTPUT reactor|command [EXPORT...]   (LINK_DEBUG=1 keeps the DWARF sections)
link() {
  local object="$1" output="$2" model="$3"
  shift 3
  local flags=(--target=wasm32-wasi)
  if [[ -z "${LINK_DEBUG:-}" ]]; then
    flags+=(-Wl,--strip-debug)
  fi
  if [[ -n "${WASI_SYSROOT:-}" ]]; then
    flags+=(--sysroot "$WASI_SYSROOT")
  fi
  if [[ "$model" == reactor ]]; then
    flags+=(-mexec-model=reactor)
  fi
  local name
  for name in "$@"; do
    flags+=("-Wl,--export=$name")
  done
  # No -O here on purpose (see above). LINK_LIBS: libraries after the object (libc++ for std::vector).
  # shellcheck disable=SC2086
  "$CLANG" "${flags[@]}" "$object" ${LINK_LIBS:-} -o "$output"
}

# Fails unless the binary has a "name" custom section with function names.
check_names() {
  node --input-type=module - "$1" <<'JS'
import { readFileSync } from "node:fs";
const file = process.argv[2];
const bytes = readFileSync(file);
const leb = (pos) => {
  let value = 0, shift = 0, byte;
  do { byte = bytes[pos++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
  return [value, pos];
};
let pos = 8, found = false;
while (pos < bytes.length) {
  const id = bytes[pos++];
  let size;
  [size, pos] = leb(pos);
  if (id === 0) {
    const [length, start] = leb(pos);
    const name = bytes.subarray(start, start + length).toString();
    if (name === "name") {
      // Look for subsection 1 (function names).
      let sub = start + length;
      while (sub < pos + size) {
        const subId = bytes[sub++];
        let subSize;
        [subSize, sub] = leb(sub);
        if (subId === 1) found = true;
        sub += subSize;
      }
    }
  }
  pos += size;
}
if (!found) {
  console.error(`${file}: no function names (name section missing)`);
  process.exit(1);
}
JS
}

# build_variant DIR DWARF NAME SOURCE reactor|command [EXPORTS / -DFLAGS...]
# DWARF empty: no debug info. Else -g with that DWARF version and source paths relative to the
# repository root (-fdebug-prefix-map), so the committed binaries name native/src/... and not this checkout.
build_variant() {
  local dir="$1" dwarf="$2" name="$3" source="$4" model="$5"
  shift 5
  local defines=() exports=() arg
  for arg in "$@"; do
    if [[ "$arg" == -D* || "$arg" == -O* ]]; then defines+=("$arg"); else exports+=("$arg"); fi
  done
  local object="$tmp/$name${dwarf:+.g}.o" output="$dir/$name.wasm" debug=()
  if [[ -n "$dwarf" ]]; then
    debug=(-g "-gdwarf-$dwarf" "-fdebug-prefix-map=$(dirname "$here")=.")
  fi
  mkdir -p "$dir"
  compile "$src/$source" "$object" ${debug[@]+"${debug[@]}"} ${defines[@]+"${defines[@]}"}
  LINK_DEBUG="$dwarf" link "$object" "$output" "$model" "${exports[@]}"
  check_names "$output"
  printf '  %-38s %7d bytes  (%s%s)\n' "${output#"$(dirname "$here")/"}" "$(wc -c < "$output")" "$model" "${dwarf:+, DWARF $dwarf}"
}

# build NAME SOURCE reactor|command [EXPORTS / -DFLAGS...]
build() {
  build_variant "$out" "" "$@"
}

# build_debug NAME SOURCE reactor|command DWARF_VERSION [EXPORTS / -DFLAGS...]: into native/wasm/debug/.
build_debug() {
  local name="$1" source="$2" model="$3" dwarf="$4"
  shift 4
  build_variant "$out/debug" "$dwarf" "$name" "$source" "$model" "$@"
}

# build_levels NAME SOURCE EXPORT...: one reactor per optimisation level users build with (the
# taint matrix: loops unrotated at -O0, rotated and guarded at -O1/-O2, unrolled at plain -O2).
build_levels() {
  local name="$1" source="$2"
  shift 2
  local level flags suffix object output
  for level in "-O0:O0" "-O1:O1" "-O2:O2" "-O2 -fno-unroll-loops:O2_nounroll"; do
    flags="${level%%:*}"
    suffix="${level##*:}"
    object="$tmp/${name}_$suffix.o"
    output="$out/${name}_$suffix.wasm"
    # shellcheck disable=SC2086
    "$CLANG" --target=wasm32-wasi $flags -Wall -Wextra -Werror -I "$here/include" "${cflags[@]}" \
      ${WASI_SYSROOT:+--sysroot "$WASI_SYSROOT"} -c "$src/$source" -o "$object"
    link "$object" "$output" reactor "$@"
    check_names "$output"
    printf '  %-32s %7d bytes  (%s)\n' "native/wasm/${name}_$suffix.wasm" "$(wc -c < "$output")" "$flags"
  done
}

# build_command_levels NAME SOURCE: a command at -O0 (counters in memory) and at plain -O2
# (counters in registers, loops rotated), as a user builds an unmodified program.
build_command_levels() {
  local name="$1" source="$2" level object output lang=() libs=""
  [[ "$source" == *.cpp ]] && lang=(-x c++ "${cxxflags[@]}") libs="-lc++ -lc++abi" || lang=("${cflags[@]}")
  for level in O0 O2; do
    object="$tmp/${name}_$level.o"
    output="$out/${name}_$level.wasm"
    "$CLANG" --target=wasm32-wasi "-$level" -Wall -Wextra -Werror -I "$here/include" "${lang[@]}" \
      ${WASI_SYSROOT:+--sysroot "$WASI_SYSROOT"} -c "$src/$source" -o "$object"
    LINK_LIBS="$libs" link "$object" "$output" command
    check_names "$output"
    printf '  %-32s %7d bytes  (-%s)\n' "native/wasm/${name}_$level.wasm" "$(wc -c < "$output")" "$level"
  done
}

# build_libc_debug NAME SOURCE: a command compiled without -g but linked keeping the DWARF of the
# libraries (Debian's wasi-libc has debug info): only library functions have source lines.
build_libc_debug() {
  local name="$1" source="$2" object="$tmp/$1.o"
  compile "$src/$source" "$object"
  LINK_DEBUG=1 link "$object" "$out/$name.wasm" command
  check_names "$out/$name.wasm"
  printf '  %-38s %7d bytes  (no -g, libc with DWARF)\n' "native/wasm/$name.wasm" "$(wc -c < "$out/$name.wasm")"
}

# build_plain NAME SOURCE reactor|command [EXPORTS...]: plain -O2, loops as clang shapes them.
build_plain() {
  loopflags=()
  build "$@"
  loopflags=("${one_to_one[@]}")
}

# build_O0 NAME SOURCE reactor|command [EXPORTS...]: unoptimised, as a debug build leaves it (into NAME_O0.wasm).
build_O0() {
  local name="$1" source="$2"
  shift 2
  loopflags=()
  build "${name}_O0" "$source" "$@" -O0
  loopflags=("${one_to_one[@]}")
}

echo "Building native kernels with $("$CLANG" --version | head -n 1)"
build matmul matmul.c reactor run
build miniapp miniapp.c reactor run
build miniapp_cmd miniapp.c command -DMINIAPP_COMMAND
build stencil stencil.cpp reactor run
build taint_examples taint_examples.c reactor \
  foo nest_const nest_linear nest_quadratic triangular matmul_small foo_ab \
  via_memory via_global via_return via_indirect callee_in_loop
build nests nests.c reactor lu heat sortnet nest3
build taint_cmd taint_cmd.c command
build taint_semantics taint_semantics.c reactor contexts fib remark two_exits
build_levels taint_matrix taint_matrix.c run
build_command_levels taint_precision taint_precision.c
build_command_levels taint_precision_cpp taint_precision.cpp
build_libc_debug taint_precision_nog taint_precision.c
build_command_levels taint_proven taint_proven.c
build_command_levels taint_proven_cpp taint_proven.cpp
build_command_levels taint_regions taint_regions.c
build_command_levels taint_regions_cpp taint_regions.cpp
build_plain gemm gemm.c reactor run
build_plain trmm trmm.c reactor run
build_plain jacobi2d jacobi2d.c reactor run
build_plain heat3d heat3d.c reactor run
build_plain lu lu.c reactor run
build_plain gemm_cmd gemm_cmd.c command
build hot_helper hot_helper.c reactor run
# The overhead suite (issue 27, bench/external-suite.ts): third-party-shaped kernels at -O0 and -O2.
build_plain elements elements.cpp reactor run
for kernel in gemm trmm jacobi2d elements; do
  case "$kernel" in elements) source=elements.cpp ;; *) source="$kernel.c" ;; esac
  build_O0 "$kernel" "$source" reactor run
done
# SPMD kernels (taintlens_mp / mpi.h): run with --ranks P.
build spmd_stencil spmd_stencil.c reactor run
build spmd_sweep spmd_sweep.c reactor run
build spmd_cg spmd_cg.c reactor run
build mpi_ring mpi_ring.c command
build blame_kernels blame_kernels.c reactor fill_then_produce sparse_solve through_callee struct_fields decode_into decode_indirect histogram_chain

# With debug info (source locations, library code apart): DWARF 4 (clang 14's default) and 5.
build_debug matmul matmul.c reactor 4 run
build_debug stencil stencil.cpp reactor 5 run
build_debug taint_examples taint_examples.c reactor 5 \
  foo nest_const nest_linear nest_quadratic triangular matmul_small foo_ab \
  via_memory via_global via_return via_indirect callee_in_loop
build_debug miniapp_cmd miniapp.c command 4 -DMINIAPP_COMMAND
build_debug blame_kernels blame_kernels.c reactor 4 fill_then_produce sparse_solve through_callee struct_fields decode_into decode_indirect histogram_chain
# C globals by name need -g: blame reads their names and sizes from .debug_info (DWARF 5 here, 4 works too).
build blame_globals blame_globals.c command
build_debug blame_globals blame_globals.c command 5
build textstat textstat.c command
