// Taint precision (issue 24, causes 5, 7 and 10) on native/src/taint_proven.c and .cpp, commands
// built at -O0 (counters in the stack frame) and plain -O2 (counters in registers, loops unrolled),
// argv words read with atoi/atof: `-- 5 4 3.5` marks n, m and g.
import { describe, expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';

interface Report {
  loops: Array<{ id: string; function: string; params: string[]; staticTrips: number | null; executed: boolean }>;
  functions: Array<{ name: string; dependency: string | null; pruned: string | null }>;
  constant: { provenLoops: number; observedLoops: number; staticFunctions: number; dynamicFunctions: number };
  warnings: string[];
}

const marks = ['--param', 'n=argv1', '--param', 'm=argv2', '--param', 'g=argv3'];

async function taint(file: string, extra: string[] = []): Promise<{ report: Report; filter: string }> {
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const filterFile = join(mkdtempSync(join(tmpdir(), 'proven-')), 'keep.filt');
  const { code, stdout, stderr } = await cli([
    'taint',
    file,
    '--json',
    '--scorep-filter',
    filterFile,
    ...marks,
    ...extra,
    '--',
    '5',
    '4',
    '3.5',
  ]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return { report: JSON.parse(stdout) as Report, filter: readFileSync(filterFile, 'utf8') };
}

/** The function of the source by its C name (C++ builds name it with its signature). */
const named = (report: Report, name: string) =>
  report.functions.find((f) => f.name === name || f.name.startsWith(`${name}(`));
const loopsOf = (report: Report, name: string) => report.loops.filter((l) => l.function === named(report, name)?.name);

const runs = new Map<string, { report: Report; filter: string }>();

for (const build of ['taint_proven_O0', 'taint_proven_O2', 'taint_proven_cpp_O0', 'taint_proven_cpp_O2']) {
  describe(build, () => {
    const file = `native/wasm/${build}.wasm`;
    let run: { report: Report; filter: string };
    test('cause 7: one loop over n*n*n depends on n three times; over n*m on both once', async () => {
      run = await taint(file);
      runs.set(build, run);
      expect(named(run.report, 'flattened')?.dependency).toBe('n*n*n');
      expect(named(run.report, 'flattened_pair')?.dependency).toBe('n*m');
    });
    test('cause 10: pow() and exp() are functional; an out-of-range (int) keeps its operand; a callee under a branch stays constant', () => {
      expect(named(run.report, 'powered')?.dependency).toBe('n*g');
      if (named(run.report, 'converted')) expect(named(run.report, 'converted')?.dependency).toBe('g');
      expect(named(run.report, 'fill')?.dependency ?? null).toBeNull();
    });
    test('cause 5: the constant class is counted, proofs never contradict the run, and the Score-P filter leaves it out', () => {
      const { report, filter } = run;
      expect(report.constant.provenLoops).toBe(report.loops.filter((l) => l.staticTrips !== null).length);
      expect(report.constant.staticFunctions).toBe(report.functions.filter((f) => f.pruned === 'static').length);
      expect(report.warnings.filter((w) => w.includes('static analysis proved'))).toEqual([]);
      for (const f of report.functions.filter((f) => f.pruned !== null))
        expect(filter).not.toContain(`INCLUDE ${f.name.replace(/\s/g, '?')}\n`);
      expect(filter).toContain('flattened');
    });
  });
}

test('cause 5: with counters in memory (-O0) the constant loops are proven before the run, as in registers', async () => {
  // The runs of the builds above (tests of a file run in order); a build run alone is tainted here.
  for (const build of ['taint_proven_O0', 'taint_proven_cpp_O0']) {
    const { report } = runs.get(build) ?? (await taint(`native/wasm/${build}.wasm`));
    expect(loopsOf(report, 'constant_loops').map((l) => l.staticTrips)).toEqual([16, 4, 3, null]);
    expect(loopsOf(report, 'only_constant').map((l) => l.staticTrips)).toEqual([10, 10]);
    expect(named(report, 'only_constant')?.pruned).toBe('static');
    // The array the loop reads was filled by a call (its address escapes), the counter is still proven.
    expect(loopsOf(report, 'under_branch').map((l) => l.staticTrips)).toEqual([8]);
    expect(report.constant.provenLoops).toBeGreaterThanOrEqual(7);
  }
});

test('cause 10: with --implicit-flow off (DFSan data flow) pow() and an out-of-range (int) still carry their operands', async () => {
  const { report } = await taint('native/wasm/taint_proven_O0.wasm', ['--implicit-flow', 'off']);
  expect(named(report, 'powered')?.dependency).toBe('n*g');
  expect(named(report, 'converted')?.dependency).toBe('g');
});
