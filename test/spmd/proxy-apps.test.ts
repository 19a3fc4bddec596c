// Real MPI proxy applications, built unchanged against native/include/mpi.h
// (native/build-proxy-apps.sh), run on several rank counts and checked by their own verification
// output: HPCCG's residuals follow the serial solve of the same global grid (ranks stack along z);
// CoMD conserves energy and loses no atoms, with the same final energy on 1, 2 and 4 ranks, and
// under `loops` and `taint` as under `run`; a campaign over HPCCG's size and rank count models its
// communication exactly. LULESH: lulesh.test.ts.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputValue as line, proxyApp as app, runApp as run } from '../helpers/proxy-app.js';
import { cli } from '../helpers/cli.js';

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

describe('HPCCG communication models', () => {
  test('measure over nx and p (ranks) gives the halo in nx*p and the dot products in p, exact', async () => {
    const output = join(dir, 'hpccg.jsonl');
    const measured = await cli([
      'measure',
      app('hpccg_mpi'),
      '--vary',
      'nx=argv1:6,8,10',
      '--vary',
      'p=ranks:2,3,4',
      '--metrics',
      'bytes,calls',
      '--mode',
      'none',
      '-o',
      output,
      '--',
      '8',
      '8',
      '4',
    ]);
    expect(measured.stderr).toBe('');
    expect(measured.code).toBe(0);
    const { stdout } = await cli(['model', output, '--json']);
    type Model = {
      callpath: string;
      metric: string;
      smape: number;
      terms: Array<{ factors: Array<{ param: string; exponent: number }> }>;
    };
    const models: Model[] = JSON.parse(stdout).models;
    const shape = (callpath: string, metric: string) => {
      const model = models.find((m) => m.callpath === callpath && m.metric === metric);
      expect(model?.smape, `${metric} of ${callpath}`).toBe(0);
      return model!.terms.map((t) => t.factors.map((f) => `${f.param}^${f.exponent}`).join('*')).sort();
    };
    // 150 iterations on every grid here: ranks stack along z, so p - 1 faces of nx*8 doubles go both ways.
    expect(shape('MPI_Send', 'bytes')).toEqual(['', 'nx^1', 'nx^1*p^1', 'p^1']);
    expect(shape('MPI_Wait', 'bytes')).toEqual(shape('MPI_Send', 'bytes'));
    expect(shape('MPI_Send', 'calls')).toEqual(['', 'p^1']);
    expect(shape('MPI_Allreduce', 'calls')).toEqual(['p^1']);
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

  test('loops and taint on 2 ranks print what run prints; the halo Sendrecv costs the lattice size and p', async () => {
    const argv = ['-i', '2', '-x', '8', '-y', '4', '-z', '4', '-N', '2', '-n', '1'];
    const dirRw = ['--dir-rw', `${dir}:.`];
    const energy = /Final energy\s*: (\S+)/;
    const expected = line(await run(app('comd_mpi'), 2, argv, dirRw), energy);
    const json = async (command: string, extra: string[]) => {
      const { code, stdout, stderr } = await cli([
        command,
        app('comd_mpi'),
        '--ranks',
        '2',
        ...dirRw,
        ...extra,
        '--json',
        '--',
        ...argv,
      ]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      return JSON.parse(stdout) as { stdout: string };
    };
    const loops = await json('loops', []);
    expect(loops.stdout).toContain('Final atom count : 512, no atoms lost');
    expect(line(loops.stdout, energy)).toBe(expected);
    const taint = (await json('taint', ['--param', 'nx=argv4'])) as unknown as {
      stdout: string;
      imports: Array<{ import: string; params: string[] }>;
    };
    expect(line(taint.stdout, energy)).toBe(expected);
    const paramsOf = (call: string) =>
      new Set(taint.imports.filter((i) => i.import === `taintlens_mp.${call}`).map((i) => i.params.join(',')));
    expect(paramsOf('mpi_sendrecv')).toEqual(new Set(['nx,p']));
    expect(paramsOf('mpi_allreduce')).toEqual(new Set(['p']));
  }, 120_000);
});
