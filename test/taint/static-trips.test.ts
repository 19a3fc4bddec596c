// Static facts for the taint report: loops with a compile-time constant trip count (static pruning)
// and the candidate callees of indirect calls (dependency expressions through call_indirect).
import { describe, test, expect } from 'vitest';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { siteTableOf } from '../../instrument/pipeline.js';
import type { TaintReport } from '../../src/taint/report.js';
import type { ImplicitFlow } from '../../instrument/passes/taint-semantics.js';

const T = { timeout: 60_000 };

async function analyze(
  text: string,
  invoke: string,
  args: string[],
  params: string[],
  implicitFlow?: ImplicitFlow,
): Promise<TaintReport> {
  return taintWat(text, invoke, args, params, { implicitFlow });
}

/** staticTrips of every loop of a one-function fixture, in order. */
function trips(
  body: string,
  locals = '(local $i i32) (local $j i32) (local $acc i32) (local $w i64)',
  extra = '',
): Array<number | null> {
  const bytes = wat(`(module (memory 1) ${extra}
    (func $f (export "run") (param $n i32) (result i32) ${locals}
      ${body}
      (local.get $acc)))`);
  return siteTableOf(bytes, 'fixture.wasm').loops.map((l) => l.staticTrips ?? null);
}

const body = '(local.set $acc (i32.add (i32.mul (local.get $acc) (i32.const 3)) (local.get $i)))';

/** AssemblyScript's `for`: a top-tested if whose arm ends with the back-edge. */
const asFor = (init: string, cond: string, step: string, inner = body, label = 'l') => `
  (local.set $i ${init})
  (loop $${label} (if ${cond} (then ${inner} (local.set $i ${step}) (br $${label}))))`;

/** clang's rotated loop: a bottom-tested br_if on the incremented induction variable. */
const clangFor = (init: string, next: string, inner = body, label = 'l') => `
  (local.set $i ${init})
  (loop $${label} ${inner} (br_if $${label} ${next}))`;

describe('constant trip counts (site table, original module)', () => {
  test('AssemblyScript and clang shapes of for (i = 0; i < 10; i++)', () => {
    expect(
      trips(
        asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (i32.const 10))', '(i32.add (local.get $i) (i32.const 1))'),
      ),
    ).toEqual([10]);
    expect(
      trips(clangFor('(i32.const 0)', '(i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 10))')),
    ).toEqual([10]);
    // clang also starts one below and compares before the increment is used (inner_five).
    expect(
      trips(clangFor('(i32.const -1)', '(i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 4))')),
    ).toEqual([5]);
  });

  test('implicit zero initialization, other steps and comparisons, i64 counters, immutable globals', () => {
    // No explicit init: a declared local starts at 0.
    expect(
      trips(
        `(loop $l (if (i32.lt_u (local.get $i) (i32.const 7)) (then ${body} (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l))))`,
      ),
    ).toEqual([7]);
    expect(trips(clangFor('(i32.const 20)', '(local.tee $i (i32.sub (local.get $i) (i32.const 2)))'))).toEqual([10]);
    expect(
      trips(
        asFor('(i32.const 1)', '(i32.le_s (local.get $i) (i32.const 1024))', '(i32.shl (local.get $i) (i32.const 1))'),
      ),
    ).toEqual([11]);
    expect(
      trips(`(local.set $w (i64.const 0))
      (loop $l ${body} (br_if $l (i64.lt_s (local.tee $w (i64.add (local.get $w) (i64.const 3))) (i64.const 30))))`),
    ).toEqual([10]);
    expect(
      trips(
        asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (global.get $k))', '(i32.add (local.get $i) (i32.const 1))'),
        undefined,
        '(global $k i32 (i32.const 6))',
      ),
    ).toEqual([6]);
    // A mutable global can change (through any call): not constant.
    expect(
      trips(
        asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (global.get $k))', '(i32.add (local.get $i) (i32.const 1))'),
        undefined,
        '(global $k (mut i32) (i32.const 6))',
      ),
    ).toEqual([null]);
  });

  test('nested constant loops, each reset before it runs; a constant loop inside an n-loop', () => {
    const inner = `(local.set $j (i32.const 0))
      (loop $in (if (i32.lt_s (local.get $j) (i32.const 3)) (then ${body} (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $in))))`;
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (i32.const 4))',
          '(i32.add (local.get $i) (i32.const 1))',
          inner,
        ),
      ),
    ).toEqual([4, 3]);
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (local.get $n))',
          '(i32.add (local.get $i) (i32.const 1))',
          inner,
        ),
      ),
    ).toEqual([null, 3]);
    // Triangular: the inner bound is the outer counter, unknown at the inner loop's entry.
    const triangular = inner.replace('(i32.const 3)', '(local.get $i)');
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (i32.const 4))',
          '(i32.add (local.get $i) (i32.const 1))',
          triangular,
        ),
      ),
    ).toEqual([4, null]);
  });

  test('not constant: the counter written from a parameter, a parameter init or bound, a parameter exit, a counter in memory', () => {
    const step = '(i32.add (local.get $i) (i32.const 1))';
    const lt10 = '(i32.lt_s (local.get $i) (i32.const 10))';
    // Constant bound, but the induction variable is also written from a parameter inside the loop.
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          lt10,
          step,
          `${body} (if (i32.eq (local.get $i) (i32.const 3)) (then (local.set $i (local.get $n))))`,
        ),
      ),
    ).toEqual([null]);
    // ... or reset under a parameter-dependent condition.
    expect(
      trips(asFor('(i32.const 0)', lt10, step, `${body} (if (local.get $n) (then (local.set $i (i32.const 0))))`)),
    ).toEqual([null]);
    expect(trips(asFor('(local.get $n)', lt10, step))).toEqual([null]);
    expect(trips(asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (local.get $n))', step))).toEqual([null]);
    // A second exit (break / return) on a parameter.
    expect(
      trips(
        `(block $out ${asFor('(i32.const 0)', lt10, step, `${body} (br_if $out (i32.eq (local.get $i) (local.get $n)))`)})`,
      ),
    ).toEqual([null]);
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          lt10,
          step,
          `${body} (if (i32.gt_s (local.get $acc) (local.get $n)) (then (return (i32.const 1))))`,
        ),
      ),
    ).toEqual([null]);
    // The counter lives in memory (unoptimized code): loads are unknown.
    expect(
      trips(`(i32.store (i32.const 16) (i32.const 0))
      (loop $l ${body} (i32.store (i32.const 16) (i32.add (i32.load (i32.const 16)) (i32.const 1)))
        (br_if $l (i32.lt_s (i32.load (i32.const 16)) (i32.const 10))))`),
    ).toEqual([null]);
    // A continue under a parameter-dependent condition that skips the increment.
    expect(trips(asFor('(i32.const 0)', lt10, step, `${body} (br_if $l (local.get $n))`))).toEqual([null]);
  });

  test('counters in frame slots (clang -O0) beside a local array written at the counter (a[i] = …)', () => {
    const frame = '(global $__stack_pointer (mut i32) (i32.const 4096)) (func $g (param i32))';
    const locals = '(local $fp i32) (local $acc i32)';
    // for (i = 0; i < 4; i++) a[i] = n; with i at fp+12 and a at fp+16 (STORE), SLOT: how i is
    // addressed; clang's epilogue restores the stack pointer from the frame pointer.
    const loop = (store: string, slot = 'offset=12 (local.get $fp)', before = '', inside = '') => `
      (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 32)))
      ${before}
      (i32.store ${slot} (i32.const 0))
      (block $done (loop $l
        (br_if $done (i32.ge_s (i32.load ${slot}) (i32.const 4)))
        ${store} ${inside}
        (i32.store ${slot} (i32.add (i32.load ${slot}) (i32.const 1)))
        (br $l)))
      (global.set $__stack_pointer (i32.add (local.get $fp) (i32.const 32)))`;
    const at = (base: number, index: string) =>
      `(i32.store (i32.add (i32.add (local.get $fp) (i32.const ${base})) (i32.shl ${index} (i32.const 2))) (local.get $n))`;
    const i = '(i32.load offset=12 (local.get $fp))';
    // The array's address is used only to index it: it does not escape, and each a[i] is known.
    expect(trips(loop(at(16, i)), locals, frame)).toEqual([4]);
    // The slot addressed in place (fp + 12 as the address, not a memarg offset) is the same slot.
    const inPlace = '(i32.add (local.get $fp) (i32.const 12))';
    expect(trips(loop(at(16, `(i32.load ${inPlace})`), inPlace), locals, frame)).toEqual([4]);
    // Not constant: a[i] at fp+8 reaches the counter at i = 1; a[n] may be anywhere in the frame.
    expect(trips(loop(at(8, i)), locals, frame)).toEqual([null]);
    expect(trips(loop(at(16, '(local.get $n)')), locals, frame)).toEqual([null]);
    // Not constant: the array's address is passed to a call, and the loop calls a function.
    const escape = '(call $g (i32.add (local.get $fp) (i32.const 16)))';
    expect(trips(loop(at(16, i), undefined, escape, '(call $g (i32.const 0))'), locals, frame)).toEqual([null]);
    // Still constant without the escape (restoring the stack pointer is none): a call cannot reach
    // a frame whose address never left it.
    expect(trips(loop(at(16, i), undefined, '', '(call $g (i32.const 0))'), locals, frame)).toEqual([4]);
  });

  test('still constant: a write that never happens, a parameter-dependent branch that does not decide the exit, a call, a trap check', () => {
    const step = '(i32.add (local.get $i) (i32.const 1))';
    const lt10 = '(i32.lt_s (local.get $i) (i32.const 10))';
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          lt10,
          step,
          `${body} (if (i32.eq (local.get $i) (i32.const 99)) (then (local.set $i (local.get $n))))`,
        ),
      ),
    ).toEqual([10]);
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          lt10,
          step,
          `(if (local.get $n) (then ${body}) (else (local.set $acc (call $g (local.get $acc)))))`,
        ),
        undefined,
        '(func $g (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))',
      ),
    ).toEqual([10]);
    expect(
      trips(
        asFor(
          '(i32.const 0)',
          lt10,
          step,
          `${body} (if (i32.gt_u (local.get $i) (local.get $n)) (then (unreachable)))`,
        ),
      ),
    ).toEqual([10]);
  });
});

describe('static pruning in the report', () => {
  test(
    'the run wins over the proof: a constant init chosen under a tainted if carries its label (with a warning)',
    T,
    async () => {
      // Both arms store 0, so the loop runs 10 times whatever n is; with every branch's control flow
      // the taint pass's if-join still gives i the condition's label, so the exit condition carries n.
      const report = await analyze(
        `(module
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        (if (i32.gt_s (local.get $n) (i32.const 3)) (then (local.set $i (i32.const 0))) (else (local.set $i (i32.const 0)) (local.set $acc (i32.const 1))))
        (loop $l (if (i32.lt_s (local.get $i) (i32.const 10)) (then ${body} (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l))))
        (local.get $acc)))`,
        'run',
        ['5'],
        ['n=arg0'],
        'on',
      );
      const loop = report.loops[0]!;
      expect(loop.staticTrips).toBe(10);
      expect(loop.iterations).toBe(10);
      expect(loop.params).toEqual(['n']);
      expect(report.functions[0]!.dependency).toBe('n');
      expect(report.functions[0]!.pruned).toBeNull();
      expect(report.warnings).toEqual([
        expect.stringMatching(
          /^L0 \(run\): the static analysis proved 10 iteration\(s\) per entry, but its exit conditions carried n in this run/,
        ),
      ]);
    },
  );

  test(
    'a function with only constant-trip loops is pruned statically; its loops still appear, and the run agrees',
    T,
    async () => {
      const report = await analyze(
        `(module
      (func $consts (param $x i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        (local.set $acc (local.get $x))
        ${asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (i32.const 10))', '(i32.add (local.get $i) (i32.const 1))')}
        ${clangFor('(i32.const 0)', '(i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 3))', body, 'm')}
        (local.get $acc))
      (func $dirty (param $x i32) (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        ${asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (i32.const 10))',
          '(i32.add (local.get $i) (i32.const 1))',
          `${body} (if (i32.eq (local.get $i) (i32.const 3)) (then (local.set $i (local.get $n))))`,
        )}
        (local.get $acc))
      (func $caller (param $x i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        ${asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (i32.const 2))',
          '(i32.add (local.get $i) (i32.const 1))',
          '(local.set $acc (i32.add (local.get $acc) (call $consts (local.get $i))))',
        )}
        (local.get $acc))
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        ${asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (local.get $n))',
          '(i32.add (local.get $i) (i32.const 1))',
          '(local.set $acc (i32.add (local.get $acc) (call $caller (local.get $i))))',
        )}
        (i32.add (local.get $acc) (call $dirty (i32.const 1) (local.get $n)))))`,
        'run',
        ['4'],
        ['n=arg0'],
      );
      const f = (name: string) => report.functions.find((x) => x.name === name)!;
      const loopsOf = (name: string) => report.loops.filter((l) => l.function === name);
      expect(f('consts').pruned).toBe('static');
      expect(loopsOf('consts').map((l) => [l.staticTrips, l.iterations, l.params])).toEqual(
        [
          [10, 80],
          [3, 24],
        ].map(([t, i]) => [t, i, []]),
      );
      // Constant loops calling a statically pruned function: pruned statically too.
      expect(f('caller').pruned).toBe('static');
      expect(loopsOf('caller')[0]!.staticTrips).toBe(2);
      // The bound is constant but the counter is also written from n: not static, and the run sees n.
      expect(loopsOf('dirty')[0]!.staticTrips).toBeNull();
      expect(f('dirty').pruned).toBeNull();
      expect(f('dirty').dependency).toBe('n');
      expect(f('run').dependency).toBe('n');
      expect(report.warnings).toEqual([]);
    },
  );

  test(
    'constant loops calling a function with a parameter loop are not pruned: the call carries its dependency',
    T,
    async () => {
      const report = await analyze(
        `(module
      (func $work (param $x i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        ${asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (local.get $x))', '(i32.add (local.get $i) (i32.const 1))')}
        (local.get $acc))
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
        ${asFor(
          '(i32.const 0)',
          '(i32.lt_s (local.get $i) (i32.const 4))',
          '(i32.add (local.get $i) (i32.const 1))',
          '(local.set $acc (i32.add (local.get $acc) (call $work (local.get $n))))',
        )}
        (local.get $acc)))`,
        'run',
        ['5'],
        ['n=arg0'],
      );
      const run = report.functions.find((x) => x.name === 'run')!;
      expect(report.loops.find((l) => l.function === 'run')!.staticTrips).toBe(4);
      expect(run.dependency).toBe('n');
      expect(run.pruned).toBeNull();
    },
  );
});

const indirectModule = (extra = '') => `(module
  (type $work (func (param i32) (result i32)))
  (table 3 funcref)
  (global $kb (mut i32) (i32.const 0))
  (elem (i32.const 0) $inner_m $inner_k $other)
  (func $inner_m (type $work) (param $x i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    ${asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (local.get $x))', '(i32.add (local.get $i) (i32.const 1))')}
    (local.get $acc))
  (func $inner_k (type $work) (param $x i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    ${asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (global.get $kb))', '(i32.add (local.get $i) (i32.const 1))')}
    (local.get $acc))
  (func $other (param $x i32) (param $y i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    ${asFor('(i32.const 0)', '(i32.lt_s (local.get $i) (local.get $x))', '(i32.add (local.get $i) (i32.const 1))')}
    (local.get $acc))
  ${extra}
  (func (export "run") (param $n i32) (param $m i32) (param $sel i32) (param $k i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    (global.set $kb (local.get $k))
    ${asFor(
      '(i32.const 0)',
      '(i32.lt_s (local.get $i) (local.get $n))',
      '(i32.add (local.get $i) (i32.const 1))',
      '(local.set $acc (i32.add (local.get $acc) (call_indirect (type $work) (local.get $m) (local.get $sel))))',
    )}
    (i32.add (local.get $acc) (call $other (local.get $n) (i32.const 0)))))`;

describe('indirect calls in dependency expressions', () => {
  test("the candidates are the table entries of the call's signature", () => {
    const table = siteTableOf(wat(indirectModule()), 'fixture.wasm');
    const call = table.calls.find((c) => c.kind === 'indirect')!;
    expect(call.candidates).toEqual(['inner_m', 'inner_k']);
  });

  test(
    'an indirect call in an n-loop to a callee with an m-loop: n*m (candidates that did not run add nothing)',
    T,
    async () => {
      const report = await analyze(indirectModule(), 'run', ['3', '4', '0', '5'], ['n=arg0', 'm=arg1', 'k=arg3']);
      const f = (name: string) => report.functions.find((x) => x.name === name)!;
      expect(f('inner_m').dependency).toBe('m');
      // inner_k has the same signature but did not run; other ran (dependency n) but has another signature.
      expect(f('inner_k').pruned).toBe('dynamic');
      expect(f('other').dependency).toBe('n');
      expect(f('run').dependency).toBe('n*m');
      expect(f('run').params).toEqual(['n', 'm']);
      expect(f('inner_m').callpath).toEqual(['run', 'inner_m']);
      expect(report.warnings).toEqual([]);
    },
  );

  test('both candidates ran: the loop multiplies with their sum', T, async () => {
    // The table index alternates (i & 1): inner_m runs m times, inner_k k times (its bound is a global).
    const text = indirectModule().replace(
      '(local.get $m) (local.get $sel)',
      '(local.get $m) (i32.and (local.get $i) (i32.const 1))',
    );
    const report = await analyze(text, 'run', ['3', '4', '0', '5'], ['n=arg0', 'm=arg1', 'k=arg3']);
    expect(report.functions.find((x) => x.name === 'inner_k')!.dependency).toBe('k');
    expect(report.functions.find((x) => x.name === 'run')!.dependency).toBe('n*k + n*m');
  });

  test(
    'a table written at run time (table.set): the callees seen running come from the context tree, with a warning',
    T,
    async () => {
      const text = indirectModule(`(func $patch (export "patch") (table.set (i32.const 2) (ref.func $inner_m)))`);
      expect(siteTableOf(wat(text), 'fixture.wasm').calls.find((c) => c.kind === 'indirect')!.candidates).toBeNull();
      const report = await analyze(text, 'run', ['3', '4', '0', '5'], ['n=arg0', 'm=arg1', 'k=arg3']);
      // No static candidates, but inner_m ran in a context under run's indirect call site.
      expect(report.functions.find((x) => x.name === 'run')!.dependency).toBe('n*m');
      expect(report.warnings.some((w) => /indirect call .* the table can change at run time/.test(w))).toBe(true);
    },
  );

  test('an exported table counts as changeable', () => {
    const text = indirectModule().replace('(table 3 funcref)', '(table (export "t") 3 funcref)');
    expect(siteTableOf(wat(text), 'fixture.wasm').calls.find((c) => c.kind === 'indirect')!.candidates).toBeNull();
  });
});
