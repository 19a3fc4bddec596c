// Host imports the runtime supplies: AssemblyScript's `env` (abort, trace, seed), the marking API
// `taintlens.register_variable` (a no-op unless a plugin gives it meaning), and WASI preview1.
import type { ModuleKind } from './protocol.js';

export class AbortError extends Error {}

type Imports = Record<string, Record<string, WebAssembly.ImportValue>>;

export function detectKind(module: WebAssembly.Module): ModuleKind {
  const imports = WebAssembly.Module.imports(module);
  const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  if (imports.some((i) => i.module.startsWith('wasi_'))) {
    return exports.has('_start') ? 'wasi-command' : 'wasi-reactor';
  }
  if (imports.some((i) => i.module === 'env' && i.name === 'abort')) return 'assemblyscript';
  // A command that needs nothing from WASI is still a command.
  return exports.has('_start') ? 'wasi-command' : 'plain';
}

/** Reads an AssemblyScript string (UTF-16, byte length stored just before it). */
export function readAssemblyScriptString(
  memory: WebAssembly.Memory | undefined,
  programPointer: number,
  programBase = 0,
): string {
  if (!memory || programPointer === 0) return '';
  const pointer = programPointer + programBase;
  const view = new DataView(memory.buffer);
  if (pointer < 4 || pointer > view.byteLength) return '';
  const length = view.getUint32(pointer - 4, true);
  if (pointer + length > view.byteLength) return '';
  return Buffer.from(memory.buffer, pointer, length).toString('utf16le');
}

export function baseImports(getMemory: () => WebAssembly.Memory | undefined, programBase = 0): Imports {
  return {
    env: {
      abort(message: number, file: number, line: number, column: number) {
        const memory = getMemory();
        const text = readAssemblyScriptString(memory, message, programBase) || 'abort';
        const where = readAssemblyScriptString(memory, file, programBase);
        throw new AbortError(`${text}${where ? ` at ${where}:${line}:${column}` : ''}`);
      },
      trace() {},
      seed() {
        return 42;
      },
    },
    taintlens: passImports(),
  };
}

/** The passes' own imports, whose effects reach only the passes' records (a plugin may supply its own). */
export function passImports(): Record<string, () => unknown> {
  return {
    register_variable() {},
    // The measurement pass's clock: one call per region entry and exit (instrument/passes/measure.ts).
    clock: () => performance.now(),
    // The sampling pass's full buffer: without a host that empties it, samples that do not fit are counted as dropped.
    drain_samples() {},
  };
}

/** Checks every import is supplied before instantiating, for a one-line error instead of a LinkError. */
export function missingImports(module: WebAssembly.Module, imports: Imports): string[] {
  return WebAssembly.Module.imports(module)
    .filter((i) => imports[i.module]?.[i.name] === undefined)
    .map((i) => `${i.module}.${i.name}`);
}
