// Sampling (issue 27): a loop whose back-edge region holds a charge window (calls of leaves charged
// at their call sites) lets that window charge the header's next run too (passes/sample.ts
// prechargeHeaders): the header then tests a flag instead of checking. The samples must be the ones
// checking every region and leaf one by one gives.
import binaryen from 'binaryen';
import { describe, expect, test } from 'vitest';
import { runSampled, type SampledRun } from '../../src/blame/sample-run.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { Block, Id, If, Loop, idOf, walkPostOrder } from '../../instrument/ir.js';
import { wat } from '../helpers/wat.js';
import { plainResult } from '../helpers/profile.js';
import { samplesOf } from '../helpers/samples.js';

// $weigh is a straight-line leaf longer than a checked region, called with locals: charged at its
// call sites. $sum's loop has the -O0 shape (header with the exit test, body, plain `br` back).
const MODULE = wat(`(module
  (memory (export "memory") 1)
  (func $weigh (param $p i32) (param $i i32) (result i32)
    (i32.add
      (i32.mul (i32.load offset=64 (i32.shl (i32.and (local.get $i) (i32.const 63)) (i32.const 2))) (i32.const 3))
      (i32.xor (local.get $p) (i32.shr_u (local.get $i) (i32.const 1)))))
  (func $sum (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (local.set $i (i32.const 0))
    (block $exit
      (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $n)))
        (i32.store offset=64 (i32.shl (i32.and (local.get $i) (i32.const 63)) (i32.const 2)) (local.get $s))
        (local.set $s (i32.add (local.get $s) (call $weigh (local.get $s) (local.get $i))))
        (local.set $s (i32.add (local.get $s) (call $weigh (local.get $i) (local.get $s))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  (func (export "run") (param $n i32) (result i32)
    (i32.add (call $sum (local.get $n)) (call $sum (i32.shr_u (local.get $n) (i32.const 1)))))
)`);

const sampled = (period: number, chargeAhead: boolean, n: number): Promise<SampledRun> =>
  runSampled(
    'fixture.wasm',
    MODULE,
    { invoke: 'run', args: [String(n)], argv: [], repeat: 1, timeoutMs: 20_000 },
    { period, instrument: { sample: { chargeAhead } } },
  );

/** The first statement of the program's loop (the only loop outside the pass's own functions). */
function loopHead(bytes: Uint8Array): { id: number; condition: number | null } {
  const module = binaryen.readBinary(bytes);
  try {
    const heads: Array<{ id: number; condition: number | null }> = [];
    for (let k = 0; k < module.getNumFunctions(); k++) {
      const info = binaryen.getFunctionInfo(module.getFunctionByIndex(k));
      if (info.name.startsWith('taintlens$') || !info.body) continue;
      walkPostOrder(info.body, (expr) => {
        if (idOf(expr) !== Id.Loop) return;
        const body = Loop.getBody(expr);
        const first = idOf(body) === Id.Block ? Block.getChildAt(body, 0) : body;
        const condition = idOf(first) === Id.If ? If.getCondition(first) : null;
        heads.push({ id: idOf(first), condition: condition === null ? null : idOf(condition) });
      });
    }
    expect(heads).toHaveLength(1);
    return heads[0]!;
  } finally {
    module.dispose();
  }
}

describe('sampling: a leaf window charges its loop header', () => {
  test("the header tests the window's flag instead of checking", () => {
    // With the window's copies (sample-window-versions.test.ts) the header is checked at the back edge instead.
    const charged = loopHead(
      instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample: { windowCopies: false } }).bytes,
    );
    expect(charged).toEqual({ id: Id.If, condition: Id.LocalGet });
    const checked = loopHead(
      instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample: { chargeAhead: false } }).bytes,
    );
    expect(checked.condition).not.toBe(Id.LocalGet);
  });

  test.each([300, 41])(
    'n = %i: the same samples as checking every region and leaf, and the same result',
    async (n) => {
      const expected = await plainResult(MODULE, [n]);
      for (const period of [5, 23, 97]) {
        const [checked, charged] = await Promise.all([sampled(period, false, n), sampled(period, true, n)]);
        expect(charged.result).toEqual(expected);
        expect(checked.samples.length).toBeGreaterThan(0);
        expect(samplesOf(charged)).toEqual(samplesOf(checked));
      }
    },
    60_000,
  );
});
