// Taint precision on unmodified programs as clang builds them (issue 24), one test per cause on the
// command native/src/taint_precision.c, in C and C++, at -O0 (counters in memory) and -O2.
import { describe, expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';

interface Report {
  loops: Array<{ id: string; function: string; params: string[]; iterations: number; executed: boolean }>;
  functions: Array<{ name: string; dependency: string | null; executed: boolean }>;
  branches: Array<{ function: string; loop: string | null; params: string[] }>;
}

const marks = ['--param', 'n=argv1', '--param', 'm=argv2', '--param', 'k=argv3', '--param', 'ranks=argv4'];
const argv = ['--', '7', '5', '9', '4'];

async function taint(file: string, extra: string[] = []): Promise<Report> {
  const { code, stdout, stderr } = await cli(['taint', file, '--json', ...marks, ...extra, ...argv]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Report;
}

/** The functions of the source by their C name (C++ builds name them with their signature: nest(int, int)). */
const named = (report: Report, name: string) =>
  report.functions.find((f) => f.name === name || f.name.startsWith(`${name}(`));
const loopsOf = (report: Report, name: string) => {
  const fn = named(report, name);
  return report.loops.filter((l) => l.function === fn?.name);
};

for (const build of ['taint_precision_O0', 'taint_precision_O2', 'taint_precision_cpp_O0', 'taint_precision_cpp_O2']) {
  describe(build, () => {
    const file = `native/wasm/${build}.wasm`;
    let report: Report;
    test('cause 8: short adjacent argv words keep their own labels (n*m, k, m; byte shadow by default)', async () => {
      report = await taint(file);
      expect(named(report, 'nest')?.dependency).toBe('n*m');
      expect(named(report, 'single')?.dependency).toBe('k');
      expect(named(report, 'over_m')?.dependency).toBe('m');
    });
    test('cause 1: a guard that returns early is a condition, not a dependency of the constant loops after it', () => {
      const loops = loopsOf(report, 'guarded');
      expect(loops.length).toBe(2);
      expect(loops.every((l) => l.params.length === 0)).toBe(true);
      expect(named(report, 'guarded')?.dependency).toBeNull();
      expect(
        report.branches.some((b) => b.function === named(report, 'guarded')?.name && b.params.includes('ranks')),
      ).toBe(true);
    });
    test('cause 2: a list built from malloc after parameter-sized allocations is walked in constant loops', () => {
      const loops = loopsOf(report, 'walk_list');
      expect(loops.filter((l) => l.params.length > 0).map((l) => l.params)).toEqual([['n']]);
      expect(named(report, 'walk_list')?.dependency).toBe('n');
    });
    test('cause 4: executed comes from the run: rare() is reachable from main but never runs', () => {
      expect(named(report, 'rare')?.executed).toBe(false);
      expect(named(report, 'single')?.executed).toBe(true);
    });
  });
}

test('cause 8: marks join, never replace: with --shadow word the shared words carry both labels, none is lost', async () => {
  const report = await taint('native/wasm/taint_precision_O2.wasm', ['--shadow', 'word']);
  const nest = named(report, 'nest')?.dependency ?? '';
  for (const name of ['n', 'm']) expect(nest).toContain(name);
  expect(named(report, 'single')?.dependency).toContain('k');
});

test('cause 9: a program built without -g against a libc with debug info keeps its own functions; atoi is library code', async () => {
  const { code, stdout } = await cli(['taint', 'native/wasm/taint_precision_nog.wasm', '--json', ...marks, ...argv]);
  expect(code).toBe(0);
  const report = JSON.parse(stdout) as {
    functions: Array<{ name: string; library?: boolean; dependency: string | null }>;
  };
  const fn = (name: string) => report.functions.find((f) => f.name === name);
  expect(fn('nest')).toMatchObject({ library: false, dependency: 'n*m' });
  expect(fn('main')?.library).toBe(false);
  expect(fn('atoi')?.library).toBe(true);
});

test('cause 6: pointer labels: join (the default, as in DFSan) adds the index to a table lookup at a marked index; data keeps it label-free', async () => {
  const { wat } = await import('../helpers/wat.js');
  const { analyzeTaint } = await import('../../src/taint/analyze.js');
  // The bound of the loop is read from a table at an address computed from n (the table holds 3s).
  const bytes = wat(`(module (memory (export "memory") 1) (data (i32.const 0) "\\03\\00\\00\\00\\03\\00\\00\\00")
    (func (export "run") (param $n i32) (result i32) (local $i i32) (local $bound i32)
      (local.set $bound (i32.load (i32.shl (i32.and (local.get $n) (i32.const 1)) (i32.const 2))))
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $bound)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i)))`);
  const run = async (pointerLabels: 'data' | 'join') =>
    (
      await analyzeTaint({
        file: 'fixture.wasm',
        bytes,
        invoke: 'run',
        args: ['5'],
        params: [{ name: 'n', arg: 0 }],
        pointerLabels,
      })
    ).report.loops.map((l) => l.params);
  expect(await run('data')).toEqual([[]]);
  expect(await run('join')).toEqual([['n']]);
});
