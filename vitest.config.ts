// Tests run real modules in worker threads (with a TypeScript loader in source mode), so a test
// that runs a kernel several times needs more than vitest's default 5 s on a 2-core machine.
//
// Two sets: `npm test` (unit and integration tests, every module, pass and command) and
// `npm run test:system` (TAINTLENS_TEST_SET=system): the tests that run the whole system end to end
// — every README example as printed, real third-party programs under every mode, a SLURM cluster,
// the fuzz corpus and its regressions, composed modes on a real WASI program, MPI proxy
// applications, LULESH against Perf-Taint, Perf-Taint's unit programs, the LULESH-shaped region
// programs, the whole analysis of the mini-app, taint precision, proofs and kernels on C/C++ builds
// at -O0 and -O2 — which took 400 of the suite's 645 test-seconds (before the last six moved).
// TAINTLENS_TEST_SET=all runs both in one run (CI: .ci/run).
import { configDefaults, defineConfig } from 'vitest/config';

export const SYSTEM_TESTS = [
  'test/cli/readme.test.ts',
  'test/runtime/third-party.test.ts',
  'test/runtime/timing.test.ts',
  'test/experiment/slurm.test.ts',
  'test/fuzz/differential.test.ts',
  'test/fuzz/regressions.test.ts',
  'test/instrument/composed-modes.test.ts',
  'test/spmd/proxy-apps.test.ts',
  'test/taint/static-trips-fuzz.test.ts',
  'test/taint/lulesh-perftaint.test.ts',
  'test/taint/regions.test.ts',
  'test/taint/perf-taint-units.test.ts',
  'test/taint/cleanup.test.ts',
  'test/instrument/sample-trips.test.ts',
  'test/analyze/analyze.test.ts',
  'test/taint/precision.test.ts',
  'test/taint/proven.test.ts',
  'test/taint/kernels.test.ts',
  'test/blame/indirect-calls.test.ts',
  'test/blame/value-flows.test.ts',
  'test/taint/call-params.test.ts',
  'test/taint/frame-labels.test.ts',
  'test/taint/coverage.test.ts',
];

const testSet = process.env.TAINTLENS_TEST_SET || undefined;
if (testSet !== undefined && testSet !== 'system' && testSet !== 'all') {
  throw new Error(`TAINTLENS_TEST_SET=${testSet}: expected 'system' or 'all'`);
}
const files =
  testSet === 'system'
    ? { include: SYSTEM_TESTS }
    : testSet === 'all'
      ? {}
      : { exclude: [...configDefaults.exclude, ...SYSTEM_TESTS] };

export default defineConfig({
  test: {
    ...files,
    testTimeout: 120_000,
    // vitest's default leaves one of our two cores idle (files ran one after another: 3m24s);
    // two workers: 2m44s on a clean clone, every test within its limit.
    maxWorkers: 2,
    // Files share a worker's module graph instead of importing every source again (imports: 36 s
    // of the suite's time, 6 s shared). Tests restore what they change (spies, env, PATH).
    isolate: false,
    hookTimeout: 120_000,
    // Temporary folders go to one folder per run; a test that leaves one behind fails the run.
    globalSetup: ['test/temp-dirs.ts'],
  },
});
