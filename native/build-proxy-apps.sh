#!/usr/bin/env bash
# Builds three real MPI proxy applications, unchanged, against native/include/mpi.h for
# wasm32-wasi and writes them to native/wasm/ (committed; their sources never are):
#
#   native/build-proxy-apps.sh LULESH_DIR HPCCG_DIR COMD_DIR
#
#   LULESH_DIR  a checkout of https://github.com/LLNL/LULESH     (lulesh*.cc at its top)
#   HPCCG_DIR   a checkout of https://github.com/Mantevo/HPCCG    (*.cpp at its top)
#   COMD_DIR    a checkout of https://github.com/ECP-copa/CoMD    (src-mpi/*.c)
#
# This script fetches nothing. Outputs: lulesh_mpi.wasm (-DUSE_MPI=1) and lulesh_serial.wasm
# (-DUSE_MPI=0, the reference the MPI runs are compared with), hpccg_mpi.wasm (-DUSING_MPI) and
# hpccg_serial.wasm, comd_mpi.wasm (-DDO_MPI -DDOUBLE). The only other defines are the apps' own
# portability switches: HPCCG's -DREDSTORM (mkdir() instead of system("mkdir"), which WASI lacks)
# and wasi-libc's emulated process clocks (getrusage/clock in HPCCG's serial timer and CoMD).
# CoMD's Makefile generates CoMD_info.h (build-machine metadata for its YAML report); here it is
# written with fixed values, so the build is reproducible. Objects are compiled with -O2 and linked
# without -O (the clang driver would run wasm-opt, which strips the name section loops tables use).
# Requirements: clang-14, lld-14, wasi-libc, libc++-14-dev-wasm32, libc++abi-14-dev-wasm32.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 LULESH_DIR HPCCG_DIR COMD_DIR" >&2
  exit 2
fi
lulesh="$(cd "$1" && pwd)"
hpccg="$(cd "$2" && pwd)"
comd="$(cd "$3" && pwd)/src-mpi"
for check in "$lulesh/lulesh.cc" "$hpccg/HPCCG.cpp" "$comd/CoMD.c"; do
  [[ -f "$check" ]] || { echo "$0: $check not found" >&2; exit 2; }
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/wasm"
CLANG="${CLANG:-clang-14}"
CLANGXX="${CLANGXX:-clang++-14}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# build NAME COMPILER "FLAGS" LINK_LIBS SOURCES...: -O2 objects, then a link without -O.
build() {
  local name="$1" compiler="$2" flags="$3" libs="$4"
  shift 4
  local dir="$tmp/$name" objects=()
  mkdir -p "$dir"
  for source in "$@"; do
    local object="$dir/$(basename "$source").o"
    # shellcheck disable=SC2086
    "$compiler" --target=wasm32-wasi -O2 $flags -c "$source" -o "$object"
    objects+=("$object")
  done
  # shellcheck disable=SC2086
  "$compiler" --target=wasm32-wasi -Wl,--strip-debug "${objects[@]}" $libs -o "$out/$name.wasm"
  echo "$out/$name.wasm: $(wc -c < "$out/$name.wasm") bytes"
}

mpi="-I $here/include"
build lulesh_mpi "$CLANGXX" "-fno-exceptions -DUSE_MPI=1 $mpi" "" "$lulesh"/lulesh*.cc
build lulesh_serial "$CLANGXX" "-fno-exceptions -DUSE_MPI=0" "" "$lulesh"/lulesh*.cc

clocks="-D_WASI_EMULATED_PROCESS_CLOCKS"
build hpccg_mpi "$CLANGXX" "-fno-exceptions -DUSING_MPI -DREDSTORM $mpi" "" "$hpccg"/*.cpp
build hpccg_serial "$CLANGXX" "-fno-exceptions -DREDSTORM $clocks" "-lwasi-emulated-process-clocks" "$hpccg"/*.cpp

info="$tmp/comd-info"
mkdir -p "$info"
cat > "$info/CoMD_info.h" <<'INFO'
#define CoMD_VARIANT "CoMD-mpi"
#define CoMD_HOSTNAME "wasm32-wasi"
#define CoMD_KERNEL_NAME "wasi"
#define CoMD_KERNEL_RELEASE "preview1"
#define CoMD_PROCESSOR "wasm32"
#define CoMD_COMPILER "clang-14"
#define CoMD_COMPILER_VERSION "14"
#define CoMD_CFLAGS "-std=c99 -DDO_MPI -DDOUBLE"
#define CoMD_LDFLAGS "-lm"
INFO
build comd_mpi "$CLANG" "-std=c99 -DDO_MPI -DDOUBLE $clocks $mpi -I $info" "-lm -lwasi-emulated-process-clocks" "$comd"/*.c
