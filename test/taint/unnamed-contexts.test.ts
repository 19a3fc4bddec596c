// The calling-context tree of a module without a name section (nextpnr's shape, issue 25): Binaryen
// names its functions by number while the site table shows them as funcN, and a function without
// loops that calls one with loops must still keep a node. Before the fix such a caller kept none:
// a callee announced its third call site and returned, and the next callee of the node-less caller
// entered from the stale site, writing into the smaller node of the indirect call's thunk
// ("corrupt context tree" when the tree was read back).
import { test, expect } from 'vitest';
import { parseParamSpec } from '../../src/taint/analyze.js';
import { wat } from '../helpers/wat.js';
import { taintChecked } from '../helpers/taint.js';
import { COUNT } from '../helpers/loop-shapes.js';

test('a loop-free function that calls functions with loops keeps its node in a module without names', async () => {
  // run → (call_indirect) thunk → $caller (no loop) → $three_calls (a loop, three calls of a leaf) then $count.
  const bytes = wat(
    `(module (memory (export "memory") 1)
    (type $t (func (param i32) (result i32)))
    (table 1 funcref) (elem (i32.const 0) $caller)
    ${COUNT}
    (func $leaf (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
    (func $three_calls (param $n i32) (result i32) (local $i i32) (local $s i32)
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (call $leaf (local.get $i))))
        (local.set $s (i32.add (local.get $s) (call $leaf (local.get $s))))
        (local.set $s (i32.add (local.get $s) (call $leaf (i32.const 7))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $s))
    (func $caller (param $n i32) (result i32)
      (i32.add (call $three_calls (local.get $n)) (call $count (local.get $n))))
    (func $thunk (param $n i32) (result i32) (call_indirect (type $t) (local.get $n) (i32.const 0)))
    (func (export "run") (param $n i32) (result i32) (call $thunk (local.get $n))))`,
    { names: false },
  );
  const { report } = await taintChecked({
    file: 'unnamed.wasm',
    bytes,
    invoke: 'run',
    args: ['4'],
    params: [parseParamSpec('n=arg0')],
  });
  // Both loops are reached along run → thunk → caller: the caller's node is on the path.
  const paths = report.loops.map((l) => ({ iterations: l.iterations, paths: l.contexts.map((c) => c.callpath) }));
  expect(paths).toHaveLength(2);
  for (const loop of paths) {
    expect(loop.iterations).toBe(4);
    expect(loop.paths).toHaveLength(1);
    expect(loop.paths[0]!.slice(0, 3)).toEqual([
      'run',
      expect.stringMatching(/^func\d+$/),
      expect.stringMatching(/^func\d+$/),
    ]);
    expect(loop.paths[0]).toHaveLength(4);
  }
  for (const loop of report.loops) expect(loop.params).toEqual(['n']);
});
