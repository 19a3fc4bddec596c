// A folded leaf (a straight-line accessor shorter than a checked region) carries no code: its
// caller's region counts its instructions. Its samples still belong under its own call path, as the
// exact profile has them: the record's countdown says where in the region the sample fell
// (src/blame/folded-samples.ts). native/wasm/elements.wasm (C++ -O2) calls the accessors
// Mesh::x/y/z/fx once per corner, about 4% of the work each.
import { describe, expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';

interface Row {
  callpath: string;
  samples: number;
  sampledPercent: number;
  exactPercent: number;
}

describe('samples due inside folded leaves', () => {
  test('land on the leaf call paths, matching the exact profile', async () => {
    const out = await cli(['sample', 'native/wasm/elements.wasm', '--args', '16,16', '--period', '4999', '--json']);
    expect(out.code).toBe(0);
    const profile = JSON.parse(out.stdout) as { totalSamples: number; maxErrorPoints: number; callpaths: Row[] };
    expect(profile.totalSamples).toBeGreaterThan(10_000);
    const accessors = profile.callpaths.filter(
      (c) => /Mesh::(x|y|z|fx)\(int\)$/.test(c.callpath) && c.exactPercent > 3,
    );
    expect(accessors).toHaveLength(4);
    for (const row of accessors) {
      expect(row.samples).toBeGreaterThan(0);
      expect(Math.abs(row.sampledPercent - row.exactPercent)).toBeLessThan(1);
    }
    // Before, the callers held the accessors' 17%: 12.5 points off the exact profile.
    expect(profile.maxErrorPoints).toBeLessThan(2);
  }, 60_000);
});
