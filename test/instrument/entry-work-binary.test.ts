// The entry-work mode alone edits the input binary (instrument/entry-work-binary.ts) instead of
// rewriting it with Binaryen: the program must compute the same (memory moved up, memory.size and
// memory.grow on the program's own memory, bulk operations and their out-of-bounds traps), and
// every counter must hold what the Binaryen-written module's counter holds after the same calls.
import { test, expect } from 'vitest';
import { wat } from '../helpers/wat.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { emitModule, readModule } from '../../instrument/module-io.js';
import { analyzeModule } from '../../instrument/sites.js';
import { applyMemoryLayout, planMemoryLayout } from '../../instrument/memory-layout.js';
import { applyEntryWork, countedFunctions, entryWorkPass } from '../../instrument/passes/entry-work.js';
import { finishBinary } from '../../instrument/binary-patch.js';
import { analyzeEntryWork } from '../../instrument/entry-work-analysis.js';
import { patchEntryWork } from '../../instrument/entry-work-binary.js';

// Nested and sequential loops, a loop after a nest (natural-loop nesting), memory.size/grow,
// copy/fill/init on program addresses, loads and stores with static offsets, an active data segment.
const KERNEL = wat(`(module
  (memory (export "memory") 1 4)
  (data (i32.const 16) "abcdefgh")
  (data $passive "0123456789")
  (func $sum (param $n i32) (result i32) (local $i i32) (local $j i32) (local $s i32)
    (block $done (loop $outer
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $j (i32.const 0))
      (block $inner_done (loop $inner
        (br_if $inner_done (i32.ge_u (local.get $j) (local.get $i)))
        (local.set $s (i32.add (local.get $s) (i32.load8_u offset=16 (i32.rem_u (local.get $j) (i32.const 8)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $inner)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $outer)))
    (loop $again
      (local.set $s (i32.add (local.get $s) (i32.const 3)))
      (br_if $again (i32.lt_u (local.tee $n (i32.sub (local.get $n) (i32.const 1))) (i32.const 100))))
    (local.get $s))
  (func $bulk (param $at i32) (result i32)
    (memory.init $passive (local.get $at) (i32.const 2) (i32.const 5))
    (memory.copy (i32.add (local.get $at) (i32.const 100)) (local.get $at) (i32.const 5))
    (memory.fill (i32.add (local.get $at) (i32.const 3)) (i32.const 120) (i32.const 2))
    (i32.add (i32.load offset=100 (local.get $at)) (i32.load16_u offset=1 (local.get $at))))
  (func (export "grow") (param $pages i32) (result i32)
    (drop (memory.grow (local.get $pages)))
    (memory.size))
  (func (export "run") (param $n i32) (result i32)
    (i64.store offset=40 (i32.const 0) (i64.const 77))
    (i32.add (call $sum (local.get $n)) (i32.add (call $bulk (i32.const 200)) (i32.wrap_i64 (i64.load offset=40 (i32.const 0)))))))`);

/** The entry-work module as Binaryen writes it (the pipeline's path for modes composed with others). */
function binaryenModule(bytes: Uint8Array): Uint8Array {
  const module = readModule(bytes, 'kernel.wasm');
  try {
    const counted = countedFunctions(analyzeModule(module));
    const layout = planMemoryLayout(module, entryWorkPass.regions({}), {});
    applyMemoryLayout(module, layout, {});
    applyEntryWork(module, counted, layout.regions['entry-work']!);
    return finishBinary(emitModule(module, 'entry-work'), layout);
  } finally {
    module.dispose();
  }
}

type Exports = Record<'run' | 'grow' | 'fill' | 'copy', (...args: number[]) => number> & { memory: WebAssembly.Memory };

async function instance(bytes: Uint8Array): Promise<Exports> {
  const { instance } = await WebAssembly.instantiate(bytes as Uint8Array<ArrayBuffer>);
  return instance.exports as unknown as Exports;
}

const counters = (memory: WebAssembly.Memory, count: number) => new BigUint64Array(memory.buffer, 0, count);

/** 'edited' when the binary edit takes the module, else why it leaves it to Binaryen. */
function editOutcome(bytes: Uint8Array): string {
  const module = readModule(bytes, 'kernel.wasm');
  try {
    const analysis = analyzeEntryWork(module)!;
    const layout = planMemoryLayout(module, entryWorkPass.regions({}), {});
    const own = analysis.functions.map((f) => f.own);
    const edit = patchEntryWork(bytes, layout, layout.regions['entry-work']!, own);
    return 'refused' in edit ? edit.refused : 'edited';
  } finally {
    module.dispose();
  }
}

test('the binary edit is taken, and computes and counts what the Binaryen-written module does', async () => {
  expect(editOutcome(KERNEL)).toBe('edited');
  const edited = instrumentModule(KERNEL, 'kernel.wasm', ['entry-work']);
  const [plain, ours, reference] = await Promise.all([
    instance(KERNEL),
    instance(edited.bytes),
    instance(binaryenModule(KERNEL)),
  ]);
  for (const n of [0, 3, 9]) {
    const expected = plain.run(n);
    expect(ours.run(n)).toBe(expected);
    expect(reference.run(n)).toBe(expected);
  }
  // The second is past the declared maximum: -1, the size unchanged.
  for (const pages of [1, 5]) {
    const expected = plain.grow(pages);
    expect(ours.grow(pages)).toBe(expected);
    expect(reference.grow(pages)).toBe(expected);
  }
  const functions = edited.sites.functions.length;
  expect([...counters(ours.memory, functions)]).toEqual([...counters(reference.memory, functions)]);
  expect([...counters(ours.memory, functions)].every((c) => c > 0n)).toBe(true);
});

test('a bulk operation past the program memory still traps, one on a wrapped address too', async () => {
  const trapping = wat(`(module (memory (export "memory") 1)
    (func (export "fill") (param $at i32) (memory.fill (local.get $at) (i32.const 1) (i32.const 8)))
    (func (export "copy") (param $to i32) (param $from i32) (memory.copy (local.get $to) (local.get $from) (i32.const 8))))`);
  expect(editOutcome(trapping)).toBe('edited');
  const a = await instance(trapping);
  const b = await instance(instrumentModule(trapping, 'trapping.wasm', ['entry-work']).bytes);
  for (const at of [0, 65528, 65529, -8, -1]) {
    const outcome = (e: Exports) => {
      try {
        e.fill(at);
        e.copy(at, 0);
        e.copy(0, at);
        return 'ok';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(outcome(b), `address ${at}`).toBe(outcome(a));
  }
});
