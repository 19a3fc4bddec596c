// Reading and writing modules with Binaryen: an explicit feature set (readBinary alone leaves a module
// at MVP), the name section kept, and invalid input turned into a one-line error naming the file.
import binaryen from 'binaryen';
import { fileError, messageOf } from '../src/util/errors.js';
import { checkWasmBytes } from './wasm-file.js';
import { checkFunctionSizes } from './engine-limits.js';

export { checkWasmBytes, readWasmFile } from './wasm-file.js';

/** What Node 20 runs and what our passes understand; Features.All produces encodings Node rejects. */
export const SUPPORTED_FEATURES =
  binaryen.Features.MutableGlobals |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.SIMD128 |
  binaryen.Features.BulkMemory |
  binaryen.Features.BulkMemoryOpt |
  binaryen.Features.SignExt |
  binaryen.Features.ReferenceTypes |
  binaryen.Features.CallIndirectOverlong |
  binaryen.Features.Multivalue;

export function readModule(bytes: Uint8Array, file: string): binaryen.Module {
  checkWasmBytes(bytes, file);
  binaryen.setDebugInfo(true);
  let module: binaryen.Module;
  try {
    // readBinary's optional second argument reads with a feature set (the typings omit it).
    module = (binaryen.readBinary as (data: Uint8Array, features: number) => binaryen.Module)(
      bytes,
      SUPPORTED_FEATURES,
    );
  } catch (error) {
    throw fileError(file, `cannot be read by Binaryen: ${messageOf(error)}`);
  }
  module.setFeatures(SUPPORTED_FEATURES);
  return module;
}

/** Validates and serializes; a failure here is a bug in a pass, so it says which. */
export function emitModule(module: binaryen.Module, what: string): Uint8Array {
  binaryen.setDebugInfo(true);
  if (!module.validate()) throw new Error(`internal: ${what} produced an invalid module`);
  const bytes = module.emitBinary();
  checkFunctionSizes(bytes, module);
  if (!WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>))
    throw new Error(`internal: ${what} produced a module Node cannot compile`);
  return bytes;
}
