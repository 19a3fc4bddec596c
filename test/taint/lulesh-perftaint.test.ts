// LULESH 2.0 at Perf-Taint's pinned commit, its six parameters marked as Perf-Taint's patch marks
// them, built as the IR Perf-Taint's pass analyses (native/build-lulesh-perftaint.sh), serial, at
// `-s 2 -i 2` (one instrumentation and a short run: the 8-rank `-s 5` figures are in docs/lulesh.md
// and `npm run bench:lulesh`). Per parameter, the functions with a loop depending on it, against
// Perf-Taint's own sets (bench/data/lulesh-perftaint.json), every difference named:
//   - MPI only: the serial build compiles the Comm* functions out (Perf-Taint's size has four);
//   - libc: wasi-libc is linked into the module and instrumented (printf_core, __fwritex, dlfree);
//     Perf-Taint links an uninstrumented libc;
//   - implicit flow: which region each element joins is chosen in loops over the elements (size)
//     and over the region bins (balance), so the region counts and the loops running to them carry
//     size and balance as well as regions; the time step, and so main's loop, carries size and p;
//     vectors sized from p and size are destroyed in loops over their length.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { mergeLibraries, shippedLibraries } from '../../src/taint/library.js';
import { functionSets, perfTaintSets } from '../../bench/lulesh-sets.js';
import { proxyApp } from '../helpers/proxy-app.js';
import { siteTableOf } from '../../instrument/pipeline.js';

const LIBC = ['__fwritex', 'dlfree', 'printf_core'];
const COMM = ['CommMonoQ(Domain&)', 'CommSBN(Domain&, int, double& (Domain::**)(int))', 'CommSend', 'CommSyncPosVel'];
/** The functions whose loops run to a region's element count (regElemSize). */
const REGION_LOOPS = [
  'CalcCourantConstraintForElems(Domain&, int, int*, double, double&)',
  'CalcEnergyForElems(double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double*, double, double, double, double, double, double*, double*, double, double, int, int*)',
  'CalcHydroConstraintForElems(Domain&, int, int*, double, double&)',
  'CalcMonotonicQRegionForElems(Domain&, int, double)',
  'CalcPressureForElems(double*, double*, double*, double*, double*, double*, double, double, double, int, int*)',
  'CalcSoundSpeedForElems(Domain&, double*, double, double*, double*, double*, double*, double, int, int*)',
  'EvalEOSForElems(Domain&, double*, int, int*, int)',
];
const VECTOR_INT_LOOPS = [
  'std::__2::__split_buffer<int, std::__2::allocator<int>&>::__destruct_at_end(int*, std::__2::integral_constant<bool, false>)',
  'std::__2::vector<int, std::__2::allocator<int> >::__base_destruct_at_end(int*)',
];
const VECTOR_DOUBLE_LOOPS = [
  'std::__2::__split_buffer<double, std::__2::allocator<double>&>::__destruct_at_end(double*, std::__2::integral_constant<bool, false>)',
  'std::__2::vector<double, std::__2::allocator<double> >::__base_destruct_at_end(double*)',
];

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();
const without = (names: string[], drop: string[]) =>
  names.filter((n) => !drop.some((d) => n === d || n.startsWith(`${d}(`)));

describe('LULESH as Perf-Taint analyses it (serial, -s 2 -i 2)', () => {
  test(
    'per parameter, the functions whose loops depend on it: Perf-Taint’s sets and the named differences',
    { timeout: 120_000 },
    async () => {
      const file = proxyApp('lulesh_pt_ir_serial');
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
      // Cause 3: the six functions looping to regElemSize(r) have regions, as in Perf-Taint. CalcQForElems
      // stops early when an element's q exceeds qstop, and q is computed region by region (implicit flow).
      const calcQ = 'CalcQForElems(Domain&)';
      expect(ours.regions).toEqual(sorted([...theirs.regions!, calcQ, ...LIBC]));
      expect(ours.balance).toEqual(sorted([...theirs.balance!, ...REGION_LOOPS, calcQ, ...LIBC]));
      expect(ours.size).toEqual(
        sorted([
          ...without(theirs.size!, COMM),
          ...REGION_LOOPS,
          ...VECTOR_INT_LOOPS,
          ...VECTOR_DOUBLE_LOOPS,
          'main',
          ...LIBC,
        ]),
      );
      // Perf-Taint's p, CalcQForElems (q follows the mesh coordinates, which carry p even on one rank),
      // plus main's time step and the vectors of ints sized from p.
      expect(ours.p).toEqual(
        sorted([
          ...theirs.p!,
          ...LIBC,
          'main',
          ...VECTOR_INT_LOOPS,
          'std::__2::__split_buffer<int, std::__2::allocator<int>&>::__construct_at_end(unsigned long)',
        ]),
      );
      // Cause 5: loops proven constant before the run (docs/lulesh.md): with counters in registers,
      // 20 of the 205 loops (18 of LULESH's own, every constant loop that ran), none contradicted.
      expect(report.constant.provenLoops).toBe(20);
      expect(report.loops.filter((l) => l.staticTrips !== null).length).toBe(20);
      expect(report.warnings.filter((w) => w.includes('static analysis proved'))).toEqual([]);
    },
  );

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
