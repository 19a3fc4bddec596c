// Compiles a module whole before the ranks of an SPMD run start, so they share its code. V8
// compiles a function lazily on its first call, in the thread that calls it: P ranks reaching the
// same function together each compile it, and a taint-instrumented function (LULESH's
// LagrangeLeapFrog has 15,858 locals) takes hundreds of MB to compile, so `taint --ranks 8` of
// LULESH peaked at 5.9 GB. Compiled once here, the module's code travels to every rank with it.
import { setFlagsFromString } from 'node:v8';

export function compileEagerly(bytes: Uint8Array): WebAssembly.Module {
  // The flag is read when a module is compiled; lazy compilation (V8's default) is restored at once.
  setFlagsFromString('--no-wasm-lazy-compilation');
  try {
    return new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  } finally {
    setFlagsFromString('--wasm-lazy-compilation');
  }
}
