// Recognizing a module `taintlens instrument` wrote, so it is not instrumented (or profiled, or
// measured) a second time as if it were the user's program. Instrumentation always exports its
// out-of-room flag, so an export under the reserved prefix marks it. Binaryen-free: the run path
// uses it too.
import { fileError } from '../src/util/errors.js';
import { RESERVED_PREFIX } from './reserved-names.js';

/** The first export under the reserved prefix, or null for a module Taintlens did not write. */
export function instrumentationMark(bytes: Uint8Array): string | null {
  let exports: WebAssembly.ModuleExportDescriptor[];
  try {
    exports = WebAssembly.Module.exports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  } catch {
    return null;
  }
  return exports.find((e) => e.name.startsWith(RESERVED_PREFIX))?.name ?? null;
}

export function refuseInstrumented(bytes: Uint8Array, file: string): void {
  const mark = instrumentationMark(bytes);
  if (mark !== null)
    throw fileError(file, `is already instrumented by Taintlens (it exports ${mark}): give the original module`);
}
