// Reading and writing modules with Binaryen: an explicit feature set (readBinary alone leaves a module
// at MVP), the name section kept, and invalid input turned into a one-line error naming the file.
import { readInputFile } from '../src/util/read-file.js';
import binaryen from 'binaryen';
import { fileError, messageOf } from '../src/util/errors.js';
import { foreignHost } from '../src/util/foreign-host.js';

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

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

export function readWasmFile(file: string): Uint8Array {
  const bytes = readInputFile(file);
  checkWasmBytes(bytes, file);
  return bytes;
}

/** Rejects what is not a valid module before Binaryen sees it (Binaryen aborts on some bad input). */
export function checkWasmBytes(bytes: Uint8Array, file: string): void {
  if (bytes.length < 8 || WASM_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw fileError(file, bytes.length < 8 && bytes.length > 0 && WASM_MAGIC.every((b, i) => i >= bytes.length || bytes[i] === b)
      ? 'truncated module (shorter than the 8-byte header)'
      : 'not a WebAssembly module (bad magic number)');
  }
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw fileError(file, `unsupported WebAssembly version ${bytes[4]}`);
  }
  let compiled: WebAssembly.Module;
  try {
    compiled = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  } catch (error) {
    throw fileError(file, `invalid module: ${describeCompileError(error)}`);
  }
  const foreign = foreignHost(WebAssembly.Module.imports(compiled), WebAssembly.Module.exports(compiled).map((e) => e.name));
  if (foreign) throw fileError(file, foreign);
}

function describeCompileError(error: unknown): string {
  const text = messageOf(error).replace(/^WebAssembly\.Module\(\): /, '');
  if (/section was shorter|length out of bounds|expected .* bytes|reached end|unexpected end|past end|beyond end/i.test(text)) {
    return `truncated or corrupt (${text})`;
  }
  return text;
}

export function readModule(bytes: Uint8Array, file: string): binaryen.Module {
  checkWasmBytes(bytes, file);
  binaryen.setDebugInfo(true);
  let module: binaryen.Module;
  try {
    // readBinary's optional second argument reads with a feature set (the typings omit it).
    module = (binaryen.readBinary as (data: Uint8Array, features: number) => binaryen.Module)(bytes, SUPPORTED_FEATURES);
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
  if (!WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)) throw new Error(`internal: ${what} produced a module Node cannot compile`);
  return bytes;
}
