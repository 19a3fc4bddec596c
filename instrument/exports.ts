// Export signatures, read with Binaryen (the JS API of Node 20 has no type reflection).
import binaryen from 'binaryen';
import { readModule } from './module-io.js';
import { readModuleInterface } from './module-interface.js';

export type WasmValueType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';

export interface ExportedFunction {
  name: string;
  params: WasmValueType[];
  results: WasmValueType[];
}

export function exportedFunctions(module: binaryen.Module): ExportedFunction[] {
  const out: ExportedFunction[] = [];
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind !== binaryen.ExternalFunction) continue;
    const func = binaryen.getFunctionInfo(module.getFunction(info.value));
    out.push({ name: info.name, params: valueTypes(func.params), results: valueTypes(func.results) });
  }
  return out;
}

/** The exports' signatures from the module's sections (module-interface.ts), else through Binaryen. */
export function readExports(bytes: Uint8Array, file: string): ExportedFunction[] {
  const read = readModuleInterface(bytes);
  if (read) return read.functions;
  const module = readModule(bytes, file);
  try {
    return exportedFunctions(module);
  } finally {
    module.dispose();
  }
}

function valueTypes(type: number): WasmValueType[] {
  return binaryen.expandType(type).map((t) => {
    if (t === binaryen.i32) return 'i32';
    if (t === binaryen.i64) return 'i64';
    if (t === binaryen.f32) return 'f32';
    if (t === binaryen.f64) return 'f64';
    if (t === binaryen.v128) return 'v128';
    if (t === binaryen.externref) return 'externref';
    return 'funcref';
  });
}
