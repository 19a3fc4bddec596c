// LULESH (https://github.com/LLNL/LULESH), built unchanged with -DUSE_MPI=1 against
// native/include/mpi.h (native/build-proxy-apps.sh), on 1, 8 and 27 ranks: its final origin energy
// equals the serial build's (-DUSE_MPI=0) on the same global mesh (p ranks of side s make a cube of
// side s·∛p), and its own symmetry checks stay at rounding.
import { describe, expect, test } from 'vitest';
import { outputValue as line, proxyApp as app, runApp as run } from '../helpers/proxy-app.js';

describe('LULESH (-DUSE_MPI=1)', () => {
  const energy = /Final Origin Energy\s*=\s*(\S+)/;
  const symmetry = (stdout: string) =>
    [...stdout.matchAll(/(?:MaxAbsDiff|TotalAbsDiff|MaxRelDiff)\s*=\s*(\S+)/g)].map((m) => Number(m[1]));

  test.each([
    [1, 3],
    [8, 2],
    [27, 1],
  ])(
    "%i rank(s) of side %i give the serial build's final origin energy; symmetry holds to rounding",
    async (ranks, side) => {
      const global = side * Math.round(Math.cbrt(ranks));
      const serial = await run(app('lulesh_serial'), 1, ['-s', String(global), '-i', '4']);
      const parallel = await run(app('lulesh_mpi'), ranks, ['-s', String(side), '-i', '4']);
      expect(parallel).toContain(`MPI tasks           =  ${ranks}`);
      expect(line(parallel, energy)).toBe(line(serial, energy));
      const diffs = symmetry(parallel);
      expect(diffs).toHaveLength(3);
      for (const diff of diffs) expect(diff).toBeLessThan(1e-8);
    },
    120_000,
  );
});
