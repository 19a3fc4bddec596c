// A function with more locals than Liftoff compiles in bounded memory is compiled with TurboFan
// (src/runtime/lazy-tier.ts): the reader counts every local group, the hints section names exactly
// the functions over the limit where V8 reads it (V8 rejects a misplaced or malformed one), a
// module under the limit is left as it is, and a hinted module computes the same results.
import { expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import {
  HINTS_SECTION,
  LIFTOFF_LOCALS_LIMIT,
  TURBOFAN_HINT,
  compileLazily,
  localCounts,
  withTierHints,
} from '../../src/runtime/lazy-tier.js';
import { customSection, readSections } from '../../instrument/wasm-reader.js';
import { compileEagerly } from '../../src/runtime/spmd/eager-compile.js';

/** `run` sums 1..n with `locals` locals declared in groups of i32 and i64; a small second function. */
function manyLocals(locals: number): Uint8Array {
  const declared = Array.from({ length: locals - 1 }, (_, i) => (i % 3 === 2 ? 'i64' : 'i32'));
  const i32s = declared.flatMap((type, i) => (type === 'i32' ? [i + 2] : []));
  const steps = i32s
    .slice(0, 40)
    .map((local) => `(local.set ${local} (i32.add (local.get 1) (i32.const ${local})))`)
    .join(' ');
  return wat(`(module
    (func (export "run") (param i32) (result i32) (local i32) (local ${declared.join(' ')})
      (block $done (loop $next
        (br_if $done (i32.eqz (local.get 0)))
        ${steps}
        (local.set 1 (i32.add (local.get 1) (local.get 0)))
        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
        (br $next)))
      (local.get 1))
    (func (param i32) (result i32) (local i64 i32) (local.get 0)))`);
}

const large = manyLocals(LIFTOFF_LOCALS_LIMIT + 1);

test('local counts read every group of every function; only functions over the limit are hinted to TurboFan', () => {
  const small = manyLocals(12);
  expect(localCounts(small)).toEqual([12, 2]);
  expect(withTierHints(small)).toBe(small);
  expect(localCounts(large)).toEqual([LIFTOFF_LOCALS_LIMIT + 1, 2]);
  const hinted = withTierHints(large);
  const sections = readSections(hinted);
  // Right after the function section (V8 rejects it elsewhere): one byte per defined function.
  expect(sections.map((s) => s.name ?? s.id)).toEqual([1, 3, HINTS_SECTION, 7, 10, 'name']);
  expect([...customSection(hinted, sections, HINTS_SECTION)!]).toEqual([2, TURBOFAN_HINT, 0]);
  expect(withTierHints(hinted)).toBe(hinted);
  expect(withTierHints(large, LIFTOFF_LOCALS_LIMIT + 1)).toBe(large);
  expect(localCounts(wat('(module (memory 1))'))).toEqual([]);
  // A truncated code section: no counts (V8's own compile reports the module).
  expect(localCounts(large.subarray(0, large.length - 20))).toEqual([]);
});

test('V8 accepts the hints, lazily and eagerly, and the hinted function computes what the unhinted one computes', () => {
  const sum = (module: WebAssembly.Module) =>
    (new WebAssembly.Instance(module).exports.run as (n: number) => number)(1000);
  expect(sum(compileLazily(large))).toBe(500500);
  expect(sum(compileLazily(large, LIFTOFF_LOCALS_LIMIT + 1))).toBe(500500);
  // SPMD ranks compile whole before they start (Liftoff, these functions TurboFan).
  expect(sum(compileEagerly(large, 'baseline'))).toBe(500500);
});
