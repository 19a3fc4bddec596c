// The paper's examples as AssemblyScript and C kernels: expected dependencies per export, and the
// instrumented module returns exactly what the original returns on the same inputs.
import { describe, test, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import type { TaintReport } from '../../src/taint/report.js';
import type { ImplicitFlow } from '../../instrument/passes/taint-semantics.js';

interface Case {
  invoke: string;
  args: string[];
  /** Function (suffix of the internal name) → expected dependency. */
  deps: Record<string, string | null>;
  prunable?: string[];
  /** Constant functions with loops are pruned 'dynamic' unless listed here (all loops have a proven constant trip count). */
  staticallyPruned?: string[];
  /** Control flow other than the default (`--implicit-flow loops`). */
  implicitFlow?: ImplicitFlow;
}

const cases: Case[] = [
  // The paper's listing: c reaches the loop only through `if (c)`, which every branch's control flow follows.
  { invoke: 'foo', args: ['3', '1', '1'], deps: { foo: 'a*b*c' }, implicitFlow: 'on' },
  { invoke: 'nest_const', args: ['5'], deps: { nest_const: 'n' } },
  { invoke: 'nest_linear', args: ['5'], deps: { nest_linear: 'n' } },
  { invoke: 'nest_quadratic', args: ['4', '3'], deps: { nest_quadratic: 'n*m' } },
  { invoke: 'triangular', args: ['6'], deps: { triangular: 'n*n' } },
  { invoke: 'matmul_small', args: ['3', '4', '5'], deps: { matmul_small: 'm*n*k' } },
  { invoke: 'foo_ab', args: ['5', '7'], deps: { foo_ab: 'a' }, prunable: ['b'] },
  { invoke: 'via_memory', args: ['6'], deps: { loopOverSlot: 'n', loop_over_slot: 'n' } },
  { invoke: 'via_global', args: ['6'], deps: { loopOverGlobal: 'n', loop_over_global: 'n' } },
  { invoke: 'via_return', args: ['6'], deps: { via_return: 'n' } },
  { invoke: 'via_indirect', args: ['6'], deps: { via_indirect: 'n' } },
  {
    invoke: 'callee_in_loop',
    args: ['6'],
    deps: { callee_in_loop: 'n', innerFive: null, inner_five: null },
    staticallyPruned: ['innerFive', 'inner_five'],
  },
];

function fn(report: TaintReport, suffix: string) {
  return report.functions.find(
    (f) => f.name === suffix || f.name.endsWith(`/${suffix}`) || f.name.endsWith(`$${suffix}`),
  );
}

async function check(file: string, c: Case): Promise<TaintReport> {
  const bytes = readFileSync(file);
  const plain = await runModule({ file, bytes, invoke: c.invoke, args: c.args });
  const analysis = await analyzeTaint({ file, bytes, invoke: c.invoke, args: c.args, implicitFlow: c.implicitFlow });
  expect(analysis.outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  let matched = 0;
  for (const [name, dependency] of Object.entries(c.deps)) {
    const f = fn(analysis.report, name);
    if (!f) continue;
    matched++;
    expect(f.dependency, `${c.invoke}: ${name}`).toBe(dependency);
    if (dependency === null && f.loops.length > 0)
      expect(f.pruned, `${c.invoke}: ${name}`).toBe(c.staticallyPruned?.includes(name) ? 'static' : 'dynamic');
  }
  expect(matched, `${c.invoke}: no expected function found`).toBeGreaterThan(0);
  for (const p of c.prunable ?? []) expect(analysis.report.prunable).toContain(p);
  // Loops proven constant by the static analysis agree with the run (no labels, trips × entries).
  expect(analysis.report.warnings.filter((w) => w.includes('static analysis'))).toEqual([]);
  return analysis.report;
}

for (const [lang, file] of [
  ['AssemblyScript', 'build/kernels/taint_examples.wasm'],
  ['C', 'native/wasm/taint_examples.wasm'],
] as const) {
  describe.skipIf(!existsSync(file))(`${lang} taint examples`, () => {
    for (const c of cases) {
      test(`${c.invoke} → ${Object.values(c.deps)[0]}`, { timeout: 60_000 }, async () => {
        await check(file, c);
      });
    }
    test('nest_const: the inner constant loop depends on nothing', { timeout: 60_000 }, async () => {
      const report = await check(file, cases[1]!);
      const loops = report.loops.filter((l) => l.function.endsWith('nest_const') && l.executed);
      expect(loops.length).toBe(2);
      const outer = loops.find((l) => l.parent === null)!;
      const inner = loops.find((l) => l.parent === outer.id)!;
      expect(outer.params).toEqual(['n']);
      expect(inner.params).toEqual([]);
      expect(outer.iterations).toBeGreaterThan(0);
      expect(outer.staticTrips).toBeNull();
      expect(inner.staticTrips).toBe(10);
      expect(inner.iterations).toBe(50);
    });
    test(
      "constant trip counts: nest_linear's outer loop (4), callee_in_loop's callee (5) is pruned statically",
      { timeout: 60_000 },
      async () => {
        const report = await check(file, cases[2]!);
        const linear = report.loops.filter((l) => l.function.endsWith('nest_linear'));
        expect(linear.find((l) => l.parent === null)!.staticTrips).toBe(4);
        expect(linear.find((l) => l.parent !== null)!.staticTrips).toBeNull();
        expect(fn(report, 'nest_linear')!.pruned).toBeNull();
        const inner = fn(report, 'innerFive') ?? fn(report, 'inner_five')!;
        expect(inner.pruned).toBe('static');
        expect(report.loops.find((l) => l.function === inner.name)!.staticTrips).toBe(5);
        // Every other loop of the examples depends on a parameter or on memory: not proven constant.
        const proven = report.loops.filter((l) => l.staticTrips !== null).map((l) => l.function.replace(/.*[/$]/, ''));
        expect(proven.sort()).toEqual([inner.name.replace(/.*[/$]/, ''), 'nest_const', 'nest_linear'].sort());
      },
    );
    test(
      'foo: c reaches the loop only implicitly (through the if-join, --implicit-flow on)',
      { timeout: 60_000 },
      async () => {
        const report = await check(file, cases[0]!);
        const loop = report.loops.find((l) => l.function.endsWith('foo') && l.executed)!;
        expect(loop.params).toEqual(expect.arrayContaining(['a', 'b', 'c']));
      },
    );
  });
}

describe.skipIf(!existsSync('native/wasm/taint_cmd.wasm'))('WASI command marking with TAINTLENS_PARAM', () => {
  test('taint_cmd 7: both nests depend on n, the constant inner loop on nothing', { timeout: 60_000 }, async () => {
    const file = 'native/wasm/taint_cmd.wasm';
    const bytes = readFileSync(file);
    const plain = await runModule({ file, bytes, invoke: null, args: [], argv: ['7'] });
    const { report, outcome } = await analyzeTaint({ file, bytes, invoke: null, args: [], argv: ['7'] });
    expect(outcome.repetitions[0]!.stdout).toBe(plain.repetitions[0]!.stdout);
    expect(outcome.repetitions[0]!.result).toBe(plain.repetitions[0]!.result);
    expect(report.parameters).toContain('n');
    expect(fn(report, 'loop_nest')!.dependency).toBe('n*n');
    const loops = report.loops.filter((l) => l.function.endsWith('loop_nest'));
    expect(loops.filter((l) => l.params.includes('n')).length).toBe(3);
  });
});

const miniapps = [
  ['AssemblyScript', 'build/kernels/miniapp.wasm'],
  ['C', 'native/wasm/miniapp.wasm'],
] as const;
for (const [lang, file] of miniapps) {
  test.skipIf(!existsSync(file))(
    `${lang} mini-app: balance is prunable, size/iters/cost drive loops`,
    { timeout: 120_000 },
    async () => {
      const bytes = readFileSync(file);
      const args = ['4', '2', '3', '2', '2'];
      const plain = await runModule({ file, bytes, invoke: 'run', args });
      const { report, outcome } = await analyzeTaint({ file, bytes, invoke: 'run', args });
      expect(outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
      expect(report.prunable).toContain('balance');
      for (const p of ['size', 'iters', 'cost']) expect(report.prunable).not.toContain(p);
    },
  );
}
