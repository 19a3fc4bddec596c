// The bundled SPMD kernels (native/src/spmd_*.c, built against the MPI subset of mpi.h): results
// equal the single-instance run where the kernel allows it, the taint analysis finds `p` exactly in
// the loops bounded by the rank count, the loop profile merges ranks, and models over p and n from
// instruction counts (exact whatever the thread scheduling) recover the stencil's halo and compute terms.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';

const root = join(import.meta.dirname, '..', '..');
const kernel = (name: string) => join(root, 'native', 'wasm', `${name}.wasm`);
const dir = mkdtempSync(join(tmpdir(), 'taintlens-spmd-kernels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function json(args: string[]) {
  const { code, stdout, stderr } = await cli([...args, '--json']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout);
}

const rankResults = (doc: { spmd: { perRank: Array<{ result: unknown }> } }) => doc.spmd.perRank.map((r) => r.result);

describe('SPMD kernels', () => {
  test.each(['spmd_stencil', 'spmd_sweep'])('%s: every rank count gives the single-instance result', async (name) => {
    const single = await json(['run', kernel(name), '--args', '24,2']);
    for (const ranks of [3, 4]) {
      const run = await json(['run', kernel(name), '--args', '24,2', '--ranks', String(ranks)]);
      expect(rankResults(run), `${ranks} ranks`).toEqual(new Array(ranks).fill(single.result));
    }
  });

  test('large halos travel in chunks (a 16.8 kB column through 16 KiB slots) and still give the single-run result', async () => {
    const single = await json(['run', kernel('spmd_stencil'), '--args', '2100,1']);
    const run = await json(['run', kernel('spmd_stencil'), '--args', '2100,1', '--ranks', '2']);
    expect(rankResults(run)).toEqual([single.result, single.result]);
  });

  test("spmd_sweep: the pipeline's receives per rank follow the wavefront (end ranks receive in one direction only)", async () => {
    const run = await json(['run', kernel('spmd_sweep'), '--args', '32,1', '--ranks', '4']);
    // 32 rows in blocks of 4: 8 receives per direction a rank has an upstream neighbour in.
    expect(
      run.spmd.perRank.map((r: { communication: { MPI_Recv: { calls: number } } }) => r.communication.MPI_Recv.calls),
    ).toEqual([8, 16, 16, 8]);
    expect(run.spmd.perRank[0].communication.MPI_Recv.steady.calls).toBe(7);
  });

  test('the AssemblyScript SPMD kernel (assembly/taintlens_mp.ts) gives the single-rank result on 3 ranks', async () => {
    const file = join(root, 'build', 'kernels', 'spmd_sum.wasm');
    const single = await json(['run', file, '--args', '1000,3']);
    const run = await json(['run', file, '--args', '1000,3', '--ranks', '3']);
    expect(rankResults(run)).toEqual([single.result, single.result, single.result]);
  });

  test('spmd_cg: ranks agree, and the residual matches the single run to rounding (dot products sum in another order)', async () => {
    const single = await json(['run', kernel('spmd_cg'), '--args', '64,10']);
    const run = await json(['run', kernel('spmd_cg'), '--args', '64,10', '--ranks', '4']);
    const results = rankResults(run) as number[];
    expect(new Set(results).size).toBe(1);
    expect(Math.abs(results[0]! - single.result) / single.result).toBeLessThan(1e-9);
    expect(run.spmd.perRank[0].communication.MPI_Allreduce.calls).toBe(21);
  });

  test('taint: p drives exactly the loops bounded by the rank count (the owned columns), not the halo', async () => {
    const report = await json(['taint', kernel('spmd_stencil'), '--args', '16,1', '--ranks', '4']);
    expect(report.parameters).toEqual(expect.arrayContaining(['n', 'p']));
    const byFunction = (fn: string) => report.loops.filter((l: { function: string }) => l.function === fn);
    // update: rows (n) and owned columns (n/p); pack/unpack: one column of n rows, whatever p is.
    expect(byFunction('update').map((l: { params: string[] }) => l.params)).toEqual([['n'], ['n', 'p']]);
    for (const fn of ['pack', 'unpack'])
      expect(byFunction(fn).map((l: { params: string[] }) => l.params)).toEqual([['n']]);
    expect(report.ranks).toHaveLength(4);
    const allreduce = report.imports.filter((i: { import: string }) => i.import === 'taintlens_mp.mpi_allreduce');
    expect(allreduce.length).toBeGreaterThan(0);
  });

  test('loops: the profile sums the ranks, and a per-rank spread shows the balanced compute loop', async () => {
    const merged = await json(['loops', kernel('spmd_stencil'), '--args', '32,2', '--ranks', '4']);
    // Instrumented, every rank still computes what the original computes.
    const plain = await json(['run', kernel('spmd_stencil'), '--args', '32,2']);
    expect(rankResults(merged)).toEqual(new Array(4).fill(plain.result));
    const perRank = merged.spmd.perRank.map((r: { instructions: number }) => r.instructions);
    expect(merged.totalInstructions).toBe(perRank.reduce((a: number, b: number) => a + b, 0));
    const update = merged.loops.find(
      (l: { function: string; depth: number }) => l.function === 'update' && l.depth === 3,
    );
    expect(merged.rankSpread[update.id].cv).toBe(0);
    expect(merged.rankSpread[update.id].perRank).toHaveLength(4);
    // 32 columns over 4 ranks, 2 steps: 32 rows x 8 columns x 2 per rank.
    expect(update.iterations).toBe(4 * 2 * 32 * 8);
  });

  test('models over p and n from instruction counts and bytes recover the halo (n*p), compute (n^2) and MPI_Allreduce (p) terms', async () => {
    const output = join(dir, 'stencil.jsonl');
    await json([
      'measure',
      kernel('spmd_stencil'),
      '--vary',
      'n=arg0:8,16,24,32,40',
      '--vary',
      'p=ranks:2,4,8',
      '--args',
      '0,1',
      '--metrics',
      'instructions,bytes,calls',
      '-o',
      output,
    ]);
    const models = await json(['model', output]);
    const shape = (callpath: string, metric = 'instructions') => {
      const model = models.models.find(
        (m: { callpath: string; metric: string }) => m.callpath === callpath && m.metric === metric,
      );
      expect(model.smape).toBe(0);
      return model.terms
        .map((t: { factors: Array<{ param: string; exponent: number; log: number }> }) =>
          t.factors.map((f) => `${f.param}^${f.exponent}${f.log ? `log${f.log}` : ''}`).join('*'),
        )
        .sort();
    };
    // Halo: every rank packs and unpacks one column of n values per neighbour: n*p over all ranks.
    expect(shape('run->pack')).toEqual(['n^1*p^1', 'p^1']);
    expect(shape('run->unpack')).toEqual(['n^1*p^1', 'p^1']);
    // Compute: n^2 cells over all ranks, plus each rank's per-row work (n*p).
    expect(shape('run->update')).toEqual(expect.arrayContaining(['n^2']));
    expect(shape('run->update')).not.toContain('n^2*p^1');
    // Communication over all ranks: each rank's halo exchange sends and receives two columns of n
    // doubles (n*p bytes); one allreduce per rank and step (p bytes and calls).
    expect(shape('MPI_Sendrecv', 'bytes')).toEqual(['n^1*p^1']);
    expect(shape('MPI_Allreduce', 'bytes')).toEqual(['p^1']);
    expect(shape('MPI_Allreduce', 'calls')).toEqual(['p^1']);
  });
});
