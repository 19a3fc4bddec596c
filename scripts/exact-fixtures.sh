#!/usr/bin/env bash
# Regenerates the instruction-count measurements of bundled kernels that test/model/exact.test.ts
# models (exact closed forms): `taintlens measure` on native/wasm/*.wasm and build/kernels/*.wasm,
# plus the taint reports the prior comes from. Run from the repository root after `npm ci`.
set -euo pipefail
out=test/model/fixtures
mkdir -p "$out"
rm -f "$out"/*.jsonl "$out"/*.campaign.json
m() { local name="$1"; shift; npx taintlens measure "$@" --metrics instructions -o "$out/$name.jsonl" > /dev/null; rm -f "$out/$name.jsonl.campaign.json"; }
m matmul native/wasm/matmul.wasm --vary n=arg0:4,6,8,10,12,14
m stencil build/kernels/stencil.wasm --vary size=arg0:6,8,10,12,14 --vary iters=arg1:1,2,3,4,5
m lu native/wasm/nests.wasm --invoke lu --vary n=arg0:4,6,8,10,12,14,16
m heat native/wasm/nests.wasm --invoke heat --vary t=arg0:1,2,3,4,5 --vary n=arg1:4,6,8,10,12
m sortnet native/wasm/nests.wasm --invoke sortnet --vary n=arg0:4,8,16,32,64,128,256
m nest3 native/wasm/nests.wasm --invoke nest3 --vary a=arg0:1,2,3,4 --vary b=arg1:1,2,3,4 --vary c=arg2:1,2,3,4
# PolyBench-sized lu (issue 28.1: a form missing its constant passed as exact on counts of 10^11).
m lu-polybench native/wasm/lu.wasm --mode full --repeat 1 --vary n=arg0:500,1000,1500,2000,2500
npx taintlens taint native/wasm/nests.wasm --invoke heat --args 2,6 --json -o "$out/heat.taint.json" > /dev/null
npx taintlens taint native/wasm/nests.wasm --invoke nest3 --args 2,3,4 --json -o "$out/nest3.taint.json" > /dev/null
npx taintlens taint native/wasm/nests.wasm --invoke lu --args 6 --json -o "$out/lu.taint.json" > /dev/null
npx taintlens taint build/kernels/stencil.wasm --args 8,2 --json -o "$out/stencil.taint.json" > /dev/null
