// LULESH 2.0 at Perf-Taint's pinned commit, its six parameters marked as Perf-Taint's patch marks
// them, built as the IR Perf-Taint's pass analyses (native/build-lulesh-perftaint.sh), serial, at
// `-s 2 -i 2` (one instrumentation and a short run: the 8-rank `-s 5` figures are in docs/lulesh.md
// and `npm run bench:lulesh`). Per parameter, the functions with a loop depending on it, against
// Perf-Taint's own sets (bench/data/lulesh-perftaint.json), with the default semantics
// (`--implicit-flow loops --pointer-labels join`), every difference named:
//   - MPI only: the serial build compiles the Comm* functions out (Perf-Taint's size has four);
//   - libc: wasi-libc is linked into the module and instrumented (printf_core, __fwritex, dlfree);
//     Perf-Taint links an uninstrumented libc;
//   - the short run: CalcQForElems stops at the first element whose q exceeds qstop, and p reaches
//     q only in later cycles (Perf-Taint's run goes to completion; docs/lulesh.md).
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { mergeLibraries, shippedLibraries } from '../../src/taint/library.js';
import { functionSets, perfTaintSets } from '../../bench/lulesh-sets.js';
import { proxyApp } from '../helpers/proxy-app.js';
import { siteTableOf } from '../../instrument/pipeline.js';

const LIBC = ['__fwritex', 'dlfree', 'printf_core'];
const COMM = ['CommMonoQ(Domain&)', 'CommSBN(Domain&, int, double& (Domain::**)(int))', 'CommSend', 'CommSyncPosVel'];

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();
const without = (names: string[], drop: string[]) =>
  names.filter((n) => !drop.some((d) => n === d || n.startsWith(`${d}(`)));

describe('LULESH as Perf-Taint analyses it (serial, -s 2 -i 2, default semantics)', () => {
  // The same sets from both builds: the IR Perf-Taint analyses, and its compile line taken
  // literally (no IR optimisation: every counter in the stack frame).
  for (const build of ['lulesh_pt_ir_serial', 'lulesh_pt_flags_serial']) {
    test(
      `${build}: per parameter, the functions whose loops depend on it: Perf-Taint’s sets and the named differences`,
      { timeout: 120_000 },
      async () => {
        const file = proxyApp(build);
        const bytes = readFileSync(file);
        const { report } = await analyzeTaint({
          file,
          bytes,
          invoke: null,
          args: [],
          argv: ['-s', '2', '-i', '2'],
          library: mergeLibraries(...shippedLibraries(bytes)),
        });
        expect(report.stdout).toContain('Final Origin Energy');
        expect(report.parameters).toEqual(['iters', 'cost', 'balance', 'size', 'regions', 'p']);
        const ours = functionSets(report);
        const theirs = perfTaintSets();

        expect(ours.iters).toEqual(theirs.iters);
        expect(ours.cost).toEqual(theirs.cost);
        expect(ours.balance).toEqual(theirs.balance);
        // Cause 3: the six functions looping to regElemSize(r) have regions, as in Perf-Taint.
        expect(ours.regions).toEqual(sorted([...theirs.regions!, 'dlfree']));
        expect(ours.size).toEqual(sorted([...without(theirs.size!, COMM), ...LIBC]));
        expect(ours.p).toEqual(sorted([...without(theirs.p!, ['CalcQForElems']), '__fwritex', 'printf_core']));
        // Cause 5: loops proven constant before the run (docs/lulesh.md), none contradicted by it: with
        // counters in registers 20 of the 205 loops (18 of LULESH's own, every constant loop that ran);
        // with every counter in the stack frame 12.
        expect(report.constant.provenLoops).toBe(build === 'lulesh_pt_ir_serial' ? 20 : 12);
        expect(report.loops.filter((l) => l.staticTrips !== null).length).toBe(report.constant.provenLoops);
        expect(report.warnings.filter((w) => w.includes('static analysis proved'))).toEqual([]);
      },
    );
  }

  test(
    'cause 5: the flags build (every counter in the stack frame) proves 12 of its 205 loops',
    { timeout: 120_000 },
    () => {
      const file = proxyApp('lulesh_pt_flags_serial');
      const loops = siteTableOf(readFileSync(file), file).loops;
      expect(loops).toHaveLength(205);
      // 9 before local arrays indexed at the counter (hxx[i] = …) stopped counting as an escape.
      const proven = loops.filter((l) => l.staticTrips !== null && l.staticTrips !== undefined);
      expect(proven).toHaveLength(12);
      const fb = proven.filter((l) => l.function.startsWith('CalcElemFBHourglassForce('));
      expect(fb.map((l) => l.staticTrips)).toEqual([4, 8, 4, 8, 4, 8]);
    },
  );
});
