// What Binaryen 132's `wasm-opt -ttf` modules need from the harness: v128 globals compared by their
// real lanes, every `fuzzing-support` import provided and recorded, and a pinned wasm-opt.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { wat } from '../helpers/wat.js';
import { makePlan, observe } from '../../src/fuzz/harness.js';
import { compareObservations } from '../../src/fuzz/compare.js';
import { checkModule } from '../../src/fuzz/differential.js';
import { readExports } from '../../instrument/exports.js';
import { availableModes } from '../../instrument/pipeline.js';
import { showV128Global } from '../../src/fuzz/v128-global.js';
import { findWasmOpt } from '../../src/fuzz/ttf.js';
import { CALLBACKS_PER_EXPORT } from '../../src/fuzz/fuzzing-support.js';

function observeWat(text: string) {
  const bytes = wat(text);
  return observe(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), makePlan(readExports(bytes, 't.wasm'), 1));
}

const v128Module = (lane3: string) => `(module
  (global $m (export "m") (mut v128) (v128.const i32x4 0 0 0 0))
  (global (export "k") v128 (v128.const f32x4 nan -0 1 2))
  (func (export "run") (global.set $m (v128.const i32x4 1 2 -1 ${lane3}))))`;

describe('v128 globals', () => {
  test('are read lane by lane, mutable or not, NaN bits included', () => {
    const observed = observeWat(v128Module('7'));
    expect(observed.globals.m).toBe('v128 0x00000001 0x00000002 0xffffffff 0x00000007');
    expect(observed.globals.k).toBe('v128 0x7fc00000 0x80000000 0x3f800000 0x40000000');
  });

  test('a different final value is a difference', () => {
    const difference = compareObservations(observeWat(v128Module('7')), observeWat(v128Module('8')));
    expect(difference?.aspect).toBe('globals');
    expect(difference?.detail).toMatch(/global m: original v128 .*0x00000007, instrumented v128 .*0x00000008/);
  });

  test('a global that is not v128 is not read as one', () => {
    expect(showV128Global(new WebAssembly.Global({ value: 'i32', mutable: true }, 5))).toBeNull();
  });

  test('modules exporting them are checked under every mode', () => {
    const report = checkModule(
      wat(v128Module('7')),
      3,
      'wat',
      availableModes().map((m) => ({ name: m, modes: [m] })),
    );
    expect(report.skipped).toBeUndefined();
    for (const outcome of Object.values(report.variants)) expect(outcome.status).toBe('agree');
  });
});

describe('fuzzing-support imports', () => {
  const imports = `
    (import "fuzzing-support" "log-i32" (func $log (param i32)))
    (import "fuzzing-support" "log-v128" (func $logv (param v128)))
    (import "fuzzing-support" "sleep" (func $sleep (param i32 i32) (result i32)))
    (import "fuzzing-support" "call-export" (func $call (param i32 i32)))
    (import "fuzzing-support" "call-export-catch" (func $catch (param i32) (result i32)))
    (import "fuzzing-support" "throw" (func $throw (param i32)))`;

  test('every one is provided and each call is recorded in order', () => {
    const observed = observeWat(`(module ${imports}
      (func (export "a") (call $log (call $sleep (i32.const 5) (i32.const 42))))
      (func (export "b") (call $log (call $catch (i32.const 99))) (call $call (i32.const 0) (i32.const 1)))
      (func (export "c") (call $throw (i32.const 0)))
      (func (export "d") (call $logv (v128.const i32x4 1 2 3 4))))`);
    expect(observed.instantiate).toBe('ok');
    const events = observed.events.join('\n');
    expect(events).toContain('sleep 5 42\nlog-i32 42');
    expect(events).toContain('call-export-catch 99\nlog-i32 1');
    expect(events).toContain('call-export 0 1\nsleep 5 42');
    expect(events).toMatch(/throw 0\ntrap Error: fuzzing-support\.throw/);
    // v128 cannot cross into JS: the engine's TypeError is what both sides see
    expect(events).toMatch(/call d\(\)\ntrap TypeError/);
  });

  test('exports calling each other from JS are budgeted: a call tree that would never end, ends', () => {
    // each call of "a" calls "a" three times through JS: 3^depth calls without a budget
    const started = Date.now();
    const observed = observeWat(`(module
      (import "fuzzing-support" "call-export-catch" (func $catch (param i32) (result i32)))
      (import "fuzzing-support" "log-i32" (func $log (param i32)))
      (func (export "a") (local $i i32)
        (loop $l
          (call $log (call $catch (i32.const 0)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))))`);
    expect(Date.now() - started).toBeLessThan(10_000);
    const callbacks = observed.events.filter((e) => e.startsWith('call-export-catch')).length;
    expect(callbacks).toBeGreaterThan(CALLBACKS_PER_EXPORT);
    expect(callbacks).toBeLessThanOrEqual(3 * (CALLBACKS_PER_EXPORT + 1));
    expect(observed.events).toContain('log-i32 1');
    expect(observed.stackOverflow).toBe(false);
  });

  test('an import from elsewhere makes the module skipped, with its name', () => {
    const report = checkModule(wat(`(module (import "env" "f" (func)) (func (export "run")))`), 1, 'wat', [
      { name: 'loops', modes: ['loops'] },
    ]);
    expect(report.skipped).toBe('cannot provide import env.f');
  });
});

describe('the pinned wasm-opt', () => {
  test("is the binaryen package's, whatever is on PATH", () => {
    const found = findWasmOpt();
    if (typeof found === 'string') throw new Error(found);
    expect(found.path).toMatch(/node_modules[\\/]binaryen[\\/]bin[\\/]wasm-opt$/);
    const pkg = JSON.parse(
      readFileSync(new URL('../../node_modules/binaryen/package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(found.version).toContain(`version ${pkg.version.split('.')[0]}`);
  }, 30_000);
});
