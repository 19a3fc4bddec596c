// The module interface read from the sections alone must say what Binaryen's full read says: every
// export's signature, the exported globals, the modules of the imported functions.
import { expect, test } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import binaryen from 'binaryen';
import { readModuleInterface } from '../../instrument/module-interface.js';
import { exportedFunctions } from '../../instrument/exports.js';
import { readModule } from '../../instrument/module-io.js';
import { wat } from '../helpers/wat.js';

function throughBinaryen(bytes: Uint8Array) {
  const module = readModule(bytes, 'm.wasm');
  try {
    const globals: string[] = [];
    const importModules = new Set<string>();
    for (let i = 0; i < module.getNumExports(); i++) {
      const info = binaryen.getExportInfo(module.getExportByIndex(i));
      if (info.kind === binaryen.ExternalGlobal) globals.push(info.name);
    }
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
      if (info.module) importModules.add(info.module);
    }
    return { functions: exportedFunctions(module), globals, importModules };
  } finally {
    module.dispose();
  }
}

const modules = [
  ...['native/wasm', 'build/kernels'].flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.wasm'))
      .map((f) => join(dir, f)),
  ),
  'node_modules/@yowasp/nextpnr-ice40/gen/icepll.core.wasm',
];

test.each(modules)('%s: the same interface as a full Binaryen read', (file) => {
  const bytes = new Uint8Array(readFileSync(file));
  expect(readModuleInterface(bytes)).toEqual(throughBinaryen(bytes));
});

test('imports of every kind, exported globals and multi-value signatures', () => {
  const bytes = wat(`(module
    (import "env" "table" (table 1 funcref))
    (import "env" "g" (global $g (mut i32)))
    (import "host" "f" (func $f (param i64 f32) (result f64)))
    (import "env" "memory" (memory 1 2))
    (global $h (export "h") (mut f64) (f64.const 1.5))
    (global (export "v") v128 (v128.const i32x4 1 2 3 4))
    (func (export "pair") (param i32 v128) (result i32 i64) (i32.const 1) (i64.const 2))
    (func (export "ref") (param externref funcref))
    (export "g" (global $g))
    (export "f" (func $f)))`);
  const read = readModuleInterface(bytes)!;
  expect(read).toEqual(throughBinaryen(bytes));
  expect(read.functions.map((f) => f.name)).toEqual(['pair', 'ref', 'f']);
  expect(read.globals).toEqual(['h', 'v', 'g']);
});

test('a truncated module is left to Binaryen (null)', () => {
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  expect(readModuleInterface(bytes.subarray(0, 40))).toBeNull();
});
