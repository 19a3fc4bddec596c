// Issue 24, cause 3 on clang's code: programs shaped like LULESH's CreateRegionIndexSets
// (native/src/taint_regions.c and .cpp), a system test (vitest.config.ts): four native builds.
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';

const T = { timeout: 60_000 };

// A region drawn with rand() per element, `regElemSize[regNum]++` in a loop over the elements, then
// per region a loop to its count, in C and C++ (std::vector counters), counters in memory (-O0) and
// in registers (-O2). One instrumentation and run per module, default semantics.
const regionBuilds = ['taint_regions_O0', 'taint_regions_O2', 'taint_regions_cpp_O0', 'taint_regions_cpp_O2'];
for (const build of regionBuilds) {
  test(`${build}: the per-region loop depends on regions, the element loops on the element count`, T, async () => {
    const file = `native/wasm/${build}.wasm`;
    const { report } = await analyzeTaint({
      file,
      bytes: readFileSync(file),
      invoke: null,
      args: [],
      argv: ['40', '3'],
      params: ['size=argv1', 'regions=argv2'].map(parseParamSpec),
    });
    // C++ names carry their signature: region_work(std::__2::vector<int, ...> const&, int).
    const ran = (name: string) =>
      report.loops.filter((l) => l.function.replace(/\(.*/, '') === name && l.iterations > 0).map((l) => l.params);
    expect(ran('assign_regions')).toEqual([['size']]);
    expect(ran('count_elements')).toEqual([['size']]); // at -O2 unrolled by 4: 40 elements leave the remainder loop unrun
    const regionLoops = ran('region_work');
    expect(regionLoops.length).toBeGreaterThan(0);
    // With the default semantics (a load joins its address's label, as in DFSan) at every level. With
    // `--implicit-flow on` at -O2 size joins it: the element loops are rotated behind a guard
    // `if (elems > 0)` whose label is the control label while rand() updates its seed.
    for (const params of regionLoops) expect(params).toEqual(['regions']);
  });
}
