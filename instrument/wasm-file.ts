// Reading a module's bytes and checking them with the engine, not Binaryen: a command that only
// runs a module (`taintlens run`) needs no more, and must not pay for loading Binaryen.
import { readInputFile } from '../src/util/read-file.js';
import { fileError, messageOf } from '../src/util/errors.js';
import { foreignHost } from '../src/util/foreign-host.js';

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

export function readWasmFile(file: string): Uint8Array {
  const bytes = readInputFile(file);
  checkWasmBytes(bytes, file);
  return bytes;
}

/** Rejects what is not a valid module before Binaryen sees it (Binaryen aborts on some bad input). */
export function checkWasmBytes(bytes: Uint8Array, file: string): void {
  if (bytes.length < 8 || WASM_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw fileError(
      file,
      bytes.length < 8 && bytes.length > 0 && WASM_MAGIC.every((b, i) => i >= bytes.length || bytes[i] === b)
        ? 'truncated module (shorter than the 8-byte header)'
        : 'not a WebAssembly module (bad magic number)',
    );
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
  const foreign = foreignHost(
    WebAssembly.Module.imports(compiled),
    WebAssembly.Module.exports(compiled).map((e) => e.name),
  );
  if (foreign) throw fileError(file, foreign);
}

function describeCompileError(error: unknown): string {
  const text = messageOf(error).replace(/^WebAssembly\.Module\(\): /, '');
  if (
    /section was shorter|length out of bounds|expected .* bytes|reached end|unexpected end|past end|beyond end/i.test(
      text,
    )
  ) {
    return `truncated or corrupt (${text})`;
  }
  return text;
}
