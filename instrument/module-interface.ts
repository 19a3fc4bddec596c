// A module's interface (exports with their signatures, exported globals, import modules) read from
// its type, import, function and export sections, without parsing code. A full Binaryen
// read only for this cost 7 s of CPU and 550 MiB on yosys (30 MiB): `loops`, `taint` and `run`
// paid it on every call, on top of instrumenting (or a cache hit). Returns null for a module it
// does not understand (e.g. GC type definitions); callers then read it with Binaryen.
import { ByteReader } from './wasm-reader.js';
import type { ExportedFunction, WasmValueType } from './exports.js';

export interface ModuleInterface {
  functions: ExportedFunction[];
  /** Exported globals by export name. */
  globals: string[];
  /** Module names of the imported functions (`wasi_snapshot_preview1`, ...). */
  importModules: Set<string>;
}

const VALUE_TYPES: Record<number, WasmValueType> = {
  0x7f: 'i32',
  0x7e: 'i64',
  0x7d: 'f32',
  0x7c: 'f64',
  0x7b: 'v128',
  0x70: 'funcref',
  0x6f: 'externref',
};

class Unsupported extends Error {}

function valueType(reader: ByteReader): WasmValueType {
  const code = reader.u8();
  const type = VALUE_TYPES[code];
  if (type) return type;
  if (code === 0x63 || code === 0x64) {
    reader.sleb(); // (ref null? heaptype)
    return 'funcref';
  }
  throw new Unsupported(`value type 0x${code.toString(16)}`);
}

function name(reader: ByteReader): string {
  const length = reader.uleb();
  const text = new TextDecoder().decode(reader.bytes.subarray(reader.pos, reader.pos + length));
  reader.skip(length);
  return text;
}

function limits(reader: ByteReader): void {
  const flags = reader.u8();
  reader.uleb();
  if (flags & 1) reader.uleb();
}

export function readModuleInterface(bytes: Uint8Array): ModuleInterface | null {
  try {
    return parse(new ByteReader(bytes, 8));
  } catch (error) {
    if (error instanceof Unsupported || error instanceof RangeError) return null;
    throw error;
  }
}

function parse(reader: ByteReader): ModuleInterface {
  const types: Array<{ params: WasmValueType[]; results: WasmValueType[] }> = [];
  const functionTypes: number[] = [];
  const importModules = new Set<string>();
  const out: ModuleInterface = { functions: [], globals: [], importModules };
  while (!reader.done) {
    const id = reader.u8();
    const size = reader.uleb();
    const end = reader.pos + size;
    if (id === 1) {
      for (let n = reader.uleb(); n > 0; n--) {
        if (reader.u8() !== 0x60) throw new Unsupported('a type that is not a function type');
        const params = Array.from({ length: reader.uleb() }, () => valueType(reader));
        const results = Array.from({ length: reader.uleb() }, () => valueType(reader));
        types.push({ params, results });
      }
    } else if (id === 2) {
      for (let n = reader.uleb(); n > 0; n--) {
        const module = name(reader);
        name(reader);
        const kind = reader.u8();
        if (kind === 0) {
          functionTypes.push(reader.uleb());
          importModules.add(module);
        } else if (kind === 1) {
          valueType(reader);
          limits(reader);
        } else if (kind === 2) limits(reader);
        else if (kind === 3) {
          valueType(reader);
          reader.u8();
        } else if (kind === 4) {
          reader.u8();
          reader.uleb();
        } else throw new Unsupported(`import kind ${kind}`);
      }
    } else if (id === 3) {
      for (let n = reader.uleb(); n > 0; n--) functionTypes.push(reader.uleb());
    } else if (id === 7) {
      for (let n = reader.uleb(); n > 0; n--) {
        const exportName = name(reader);
        const kind = reader.u8();
        const index = reader.uleb();
        if (kind === 0) {
          const type = types[functionTypes[index] ?? -1];
          if (!type) throw new Unsupported(`export ${exportName} of an unknown function`);
          out.functions.push({ name: exportName, params: type.params, results: type.results });
        } else if (kind === 3) out.globals.push(exportName);
      }
    }
    reader.pos = end;
  }
  return out;
}
