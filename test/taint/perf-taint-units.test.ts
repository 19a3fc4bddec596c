// Perf-Taint's own unit programs (native/wasm/perf-taint/, built unchanged with its flags by
// native/build-perf-taint-units.sh), compared with its expected output as its tests run them
// (bench/perf-taint-units.ts). All 32 buildable units match (32/33: the 33rd needs OpenMP);
// `node dist/bench/perf-taint-units.js` recounts them all. The suite runs the units that failed
// before issue 24's cause 10 and one per kind, to stay cheap.
import { describe, expect, test } from 'vitest';
import { perfTaintUnits, runUnit, unitDifferences } from '../../bench/perf-taint-units.js';

const units = perfTaintUnits();
const checked = [
  'dataflow_function_retval', // a callee's stack stores under the caller's branch; data flow only
  'control-flow_function_retval', // the same program with control flow: the caller's branch counts
  'dataflow_nested_loop', // both modes
  'mpi_taint_communication_size_p2p', // two ranks, Perf-Taint's MPI database
];

test('every unit Perf-Taint has an expected output for, but the OpenMP one, is built and listed', () => {
  expect(units.length).toBe(32);
  expect(units.filter((u) => u.unit.startsWith('mpi_')).length).toBe(7);
});

describe('units match Perf-Taint in every mode their tests use', () => {
  for (const name of checked) {
    const unit = units.find((u) => u.unit === name)!;
    test(name, { timeout: 60_000 }, async () => {
      for (const implicitFlow of unit.implicitFlow)
        expect(unitDifferences(unit, await runUnit(unit, implicitFlow)), `implicit flow ${implicitFlow}`).toEqual([]);
    });
  }
});
