// A function with more locals than Liftoff compiles in bounded memory is compiled with TurboFan
// (src/runtime/lazy-tier.ts): the reader counts every local group, the hints section names exactly
// the functions over the limit where V8 reads it, a module under the limit is left as it is, and
// runs of hinted modules compute the same results.
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
import { runModule } from '../../src/runtime/run.js';

/** `run` sums 1..n through `locals` i32 locals in groups of i32 and i64 (each local takes a turn). */
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

test('local counts read every group of every function; only functions over the limit are hinted to TurboFan', () => {
  const small = manyLocals(12);
  expect(localCounts(small)).toEqual([12, 2]);
  expect(withTierHints(small)).toBe(small);
  const large = manyLocals(LIFTOFF_LOCALS_LIMIT + 501);
  expect(localCounts(large)).toEqual([LIFTOFF_LOCALS_LIMIT + 501, 2]);
  const hinted = withTierHints(large);
  const sections = readSections(hinted);
  // Right after the function section (V8 rejects it elsewhere): one byte per defined function.
  expect(sections.map((s) => s.name ?? s.id)).toEqual([1, 3, HINTS_SECTION, 7, 10, 'name']);
  expect([...customSection(hinted, sections, HINTS_SECTION)!]).toEqual([2, TURBOFAN_HINT, 0]);
  expect(withTierHints(hinted)).toBe(hinted);
  expect(WebAssembly.Module.exports(compileLazily(large))).toEqual([{ name: 'run', kind: 'function' }]);
  expect(localCounts(wat('(module (memory 1))'))).toEqual([]);
  // A truncated code section: no counts (V8's own compile reports the module).
  expect(localCounts(large.subarray(0, large.length - 20))).toEqual([]);
});

test('a run of a hinted module computes what the unhinted one computes', async () => {
  const outcome = await runModule({
    file: 'locals.wasm',
    bytes: manyLocals(LIFTOFF_LOCALS_LIMIT + 501),
    invoke: 'run',
    args: ['1000'],
  });
  expect(outcome.repetitions[0]!.result).toBe(500500);
});
