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
# interleaving), -fno-vectorize and -fno-slp-vectorize.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/src"
out="$here/wasm"
CLANG="${CLANG:-clang-14}"

common=(--target=wasm32-wasi -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize
        -Wall -Wextra -Werror -I "$here/include")
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
    *.c) "$CLANG" "${common[@]}" "${cflags[@]}" "$@" -c "$source" -o "$object" ;;
    *.cpp) "$CLANG" -x c++ "${common[@]}" "${cxxflags[@]}" "$@" -c "$source" -o "$object" ;;
    *) echo "unknown source type: $source" >&2; return 1 ;;
  esac
}

# link OBJECT OUTPUT reactor|command [EXPORT...]
link() {
  local object="$1" output="$2" model="$3"
  shift 3
  local flags=(--target=wasm32-wasi -Wl,--strip-debug)
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
  # No -O here on purpose (see above).
  "$CLANG" "${flags[@]}" "$object" -o "$output"
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

# build NAME SOURCE reactor|command [EXPORTS / -DFLAGS...]
build() {
  local name="$1" source="$2" model="$3"
  shift 3
  local defines=() exports=() arg
  for arg in "$@"; do
    if [[ "$arg" == -D* ]]; then defines+=("$arg"); else exports+=("$arg"); fi
  done
  local object="$tmp/$name.o" output="$out/$name.wasm"
  compile "$src/$source" "$object" "${defines[@]}"
  link "$object" "$output" "$model" "${exports[@]}"
  check_names "$output"
  printf '  %-32s %7d bytes  (%s)\n' "native/wasm/$name.wasm" "$(wc -c < "$output")" "$model"
}

echo "Building native kernels with $("$CLANG" --version | head -n 1)"
build matmul matmul.c reactor run
build miniapp miniapp.c reactor run
build miniapp_cmd miniapp.c command -DMINIAPP_COMMAND
build stencil stencil.cpp reactor run
build taint_examples taint_examples.c reactor \
  foo nest_const nest_linear nest_quadratic triangular matmul_small foo_ab \
  via_memory via_global via_return via_indirect callee_in_loop
build taint_cmd taint_cmd.c command
build taint_semantics taint_semantics.c reactor contexts fib remark two_exits
build textstat textstat.c command
