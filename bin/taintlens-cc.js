#!/usr/bin/env node
// clang for wasm32-wasi with -g, then taintlens instrumentation of the linked module (src/cc/wrapper.ts).
import { runWrapper } from '../dist/src/cc/wrapper.js';
process.exitCode = runWrapper('c', process.argv.slice(2));
