// Binary edits Binaryen cannot make: memory limits, data segments moved up, memory exported.
import { expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { ensureMemoryExport, patchMemoryLimits, MEMORY_EXPORT } from '../../instrument/binary-patch.js';
import { instrumentModule } from '../../instrument/pipeline.js';

test('a memory export is added in section order, also before a data-count section', () => {
  const bytes = ensureMemoryExport(
    wat(
      `(module (memory 1) (data "ab") (func (drop (i32.const 1))) (func $f (memory.init 0 (i32.const 0) (i32.const 0) (i32.const 1))))`,
    ),
  );
  expect(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)).toBe(true);
  const exports = WebAssembly.Module.exports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  expect(exports).toEqual([{ name: MEMORY_EXPORT, kind: 'memory' }]);
});

test('an existing export list gains the memory; an exported memory is left alone', () => {
  const withRun = ensureMemoryExport(wat(`(module (memory 1) (func (export "run")))`));
  expect(
    WebAssembly.Module.exports(new WebAssembly.Module(withRun as Uint8Array<ArrayBuffer>)).map((e) => e.name),
  ).toEqual(['run', MEMORY_EXPORT]);
  const exported = wat(`(module (memory (export "mem") 1))`);
  expect(ensureMemoryExport(exported)).toBe(exported);
});

test('memory limits are rewritten', () => {
  const bytes = patchMemoryLimits(wat(`(module (memory (export "memory") 1 2))`), 7, 9);
  const memory = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).exports
    .memory as WebAssembly.Memory;
  expect(memory.buffer.byteLength).toBe(7 * 65536);
  expect(memory.grow(2)).toBe(7);
  expect(() => memory.grow(1)).toThrow();
});

test("instrumented data segments, memory.size and memory.grow keep the program's view", async () => {
  const module = wat(`(module (memory (export "memory") 1 4) (data (i32.const 16) "\\2a\\00\\00\\00")
    (func (export "run") (result i32)
      (i32.add (i32.load (i32.const 16))
        (i32.add (i32.mul (memory.size) (i32.const 100)) (i32.mul (memory.grow (i32.const 3)) (i32.const 10000))))))`);
  const plain = (
    new WebAssembly.Instance(new WebAssembly.Module(module as Uint8Array<ArrayBuffer>)).exports.run as () => number
  )();
  const { bytes, sites } = instrumentModule(module, 'fixture.wasm', ['loops']);
  expect(sites.layout!.programBase).toBeGreaterThan(0);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), {});
  expect((instance.exports.run as () => number)()).toBe(plain);
  expect(plain).toBe(42 + 100 + 10000);
  const memory = instance.exports.memory as WebAssembly.Memory;
  expect(new DataView(memory.buffer).getInt32(sites.layout!.programBase + 16, true)).toBe(42);
});
