// The MPI library database (library/taintlens_mp.json) on a real MPI program: as in Perf-Taint's
// MPI modelling, every communication call of native/src/mpi_ring.c costs p (the size of
// MPI_COMM_WORLD), and the Isends/Irecvs also the labels of their count.
import { expect, test } from 'vitest';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';

const ring = join(import.meta.dirname, '..', '..', 'native', 'wasm', 'mpi_ring.wasm');

test("taint: every MPI call costs p, and the ring's Isend/Irecv also their count n (the paper's MPI modelling)", async () => {
  const { code, stdout } = await cli([
    'taint',
    ring,
    '--ranks',
    '2',
    '--param',
    'n=argv1',
    '--json',
    '--',
    '2048',
    '1',
  ]);
  expect(code).toBe(0);
  const imports: Array<{ import: string; params: string[] }> = JSON.parse(stdout).imports;
  const paramsOf = (name: string) =>
    new Set(imports.filter((i) => i.import === `taintlens_mp.${name}`).map((i) => i.params.join(',')));
  expect(paramsOf('mpi_isend')).toContain('n,p');
  expect(paramsOf('mpi_irecv')).toContain('n,p');
  for (const call of ['mpi_waitall', 'mpi_allgather', 'mpi_gather', 'mpi_comm_split', 'mpi_reduce'])
    expect([...paramsOf(call)], call).toEqual(['p']);
});
