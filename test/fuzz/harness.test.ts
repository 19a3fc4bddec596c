// The fuzzer's own machinery: it sees a real difference, shrinks the module while keeping it, and
// its generator is deterministic. The planted bug: bounds checks turned off with our data above the
// program's memory, so an out-of-bounds load reads instrumentation data instead of trapping.
import { describe, expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { checkModule, stillFails, type Variant } from '../../src/fuzz/differential.js';
import { shrink } from '../../src/fuzz/shrink.js';
import { generateModule } from '../../src/fuzz/generator.js';
import { availableModes, type InstrumentOptions } from '../../instrument/pipeline.js';

const planted: Variant = {
  name: 'loops',
  modes: ['loops'],
  options: { boundsChecks: false, placement: 'above' } as InstrumentOptions,
};

const module = wat(`(module
  (import "fuzzing-support" "log-i32" (func $log (param i32)))
  (memory (export "memory") 1 1)
  (global $g (export "g") (mut i32) (i32.const 3))
  (func $noise (export "noise") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.mul (local.get $i) (local.get $i))))
      (call $log (local.get $s))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.and (local.get $n) (i32.const 7)))))
    (global.set $g (local.get $s))
    (local.get $s))
  (func (export "more_noise") (result f64) (f64.sqrt (f64.convert_i32_s (call $noise (i32.const 5)))))
  (func (export "past_the_end") (result i32)
    (drop (call $noise (i32.const 3)))
    (i32.load (i32.const 65536))))`);

describe('the differential check', () => {
  test('an unchanged program agrees under every mode', () => {
    const report = checkModule(
      module,
      1,
      'wat',
      availableModes().map((m) => ({ name: m, modes: [m] })),
    );
    for (const outcome of Object.values(report.variants)) expect(['agree', 'unsupported']).toContain(outcome.status);
  });

  test('a planted difference is found and shrunk, and the shrunk module still shows it', () => {
    const outcome = checkModule(module, 1, 'wat', [planted]).variants.loops!;
    expect(outcome.status).toBe('mismatch');
    if (outcome.status !== 'mismatch') return;
    expect(outcome.difference.detail).toMatch(/memory access out of bounds/);
    const shrunk = shrink(module, 1, planted, outcome, 30_000);
    expect(shrunk.accepted).toBeGreaterThan(0);
    expect(shrunk.bytes.length).toBeLessThan(module.length / 2);
    expect(stillFails(shrunk.bytes, 1, planted, outcome)).toBe(true);
  }, 60_000);
});

describe('the generator', () => {
  test('is deterministic and produces valid modules', () => {
    for (const seed of [1, 2, 3, 77, 1234]) {
      const a = generateModule(seed);
      expect(WebAssembly.validate(a as Uint8Array<ArrayBuffer>)).toBe(true);
      expect(Buffer.from(generateModule(seed)).equals(Buffer.from(a))).toBe(true);
    }
  });
});
