// Real MPI proxy applications, built unchanged against native/include/mpi.h
// (native/build-proxy-apps.sh), run on several rank counts and checked by their own verification
// output: HPCCG's residuals follow the serial solve of the same global grid (ranks stack along z);
// CoMD conserves energy and loses no atoms, with the same final energy on 1, 2 and 4 ranks.
// LULESH: lulesh.test.ts.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputValue as line, proxyApp as app, runApp as run } from '../helpers/proxy-app.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-proxy-apps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('HPCCG (-DUSING_MPI)', () => {
  const residuals = (stdout: string) =>
    [...stdout.matchAll(/Iteration = (\d+)\s+Residual = (\S+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);

  test('2 and 4 ranks follow the serial solve of the same global grid, iteration by iteration', async () => {
    const serialOutput = await run(app('hpccg_serial'), 1, ['12', '12', '16']);
    const serial = residuals(serialOutput);
    const serialInitial = line(serialOutput, /Initial Residual = (\S+)/);
    expect(serial.length).toBeGreaterThan(3);
    for (const ranks of [2, 4]) {
      const stdout = await run(app('hpccg_mpi'), ranks, ['12', '12', String(16 / ranks)]);
      expect(stdout).toContain(`Number of MPI ranks: ${ranks}`);
      const parallel = residuals(stdout);
      expect(parallel.map(([iteration]) => iteration)).toEqual(serial.map(([iteration]) => iteration));
      // Dot products sum in another order over ranks: equal to rounding while the residual is far above it.
      serial.forEach(([iteration, residual], k) => {
        if (residual > 1e-6 * serial[0]![1])
          expect(Math.abs(parallel[k]![1] / residual - 1), `${ranks} ranks, iteration ${iteration}`).toBeLessThan(1e-4);
      });
      expect(line(stdout, /Initial Residual = (\S+)/)).toBe(serialInitial);
      expect(parallel.at(-1)![1]).toBeLessThan(1e-20);
    }
  }, 120_000);
});

describe('CoMD (-DDO_MPI)', () => {
  test('1, 2 and 4 ranks conserve energy, lose no atoms and end with the same energy', async () => {
    const finals: string[] = [];
    for (const [i, j] of [
      [1, 1],
      [2, 1],
      [2, 2],
    ] as const) {
      const stdout = await run(
        app('comd_mpi'),
        i * j,
        ['-i', String(i), '-j', String(j), '-k', '1', '-x', '8', '-y', '8', '-z', '4', '-N', '10', '-n', '5'],
        ['--dir-rw', `${dir}:.`],
      );
      expect(stdout).toContain('Final atom count : 1024, no atoms lost');
      expect(Number(line(stdout, /eFinal\/eInitial : (\S+)/))).toBeGreaterThan(0.9999);
      finals.push(line(stdout, /Final energy\s*: (\S+)/));
    }
    expect(new Set(finals).size).toBe(1);
  }, 120_000);
});
