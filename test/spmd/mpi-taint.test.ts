// The MPI library database (library/taintlens_mp.json) on a real MPI program: as in Perf-Taint's
// MPI modelling, every communication call of native/src/mpi_ring.c costs p (the size of
// MPI_COMM_WORLD), and the Isends/Irecvs also the labels of their count; a sub-communicator made
// by MPI_Comm_split carries the labels of its colour and key.
import { expect, test } from 'vitest';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { wat } from '../helpers/wat.js';

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

test("taint: a sub-communicator's size carries p and the labels of the split's colour and key", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-split-'));
  try {
    // colour = c % 2 (c: argument 0), key = k (argument 1); a loop runs as many times as the new
    // communicator has ranks, another as MPI_COMM_WORLD has (dup'ed), a third as the plain count k.
    const file = join(dir, 'split.wasm');
    writeFileSync(
      file,
      wat(`(module
      (import "taintlens_mp" "mpi_comm_split" (func $split (param i32 i32 i32 i32)))
      (import "taintlens_mp" "mpi_comm_dup" (func $dup (param i32 i32)))
      (import "taintlens_mp" "mpi_comm_size" (func $size (param i32) (result i32)))
      (memory (export "memory") 1)
      (func $count (param $n i32) (result i32) (local $i i32)
        (block $done (loop $next
          (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
        (local.get $i))
      (func $sub (param $c i32) (param $k i32) (result i32)
        (call $split (i32.const 0) (i32.rem_u (local.get $c) (i32.const 2)) (local.get $k) (i32.const 16))
        (call $count (call $size (i32.load (i32.const 16)))))
      (func $world (result i32)
        (call $dup (i32.const 0) (i32.const 20))
        (call $count (call $size (i32.load (i32.const 20)))))
      (func (export "run") (param $c i32) (param $k i32) (result i32)
        (i32.add (call $sub (local.get $c) (local.get $k)) (call $world))))`),
    );
    const { code, stdout, stderr } = await cli([
      'taint',
      file,
      '--ranks',
      '2',
      '--args',
      '3,5',
      '--param',
      'c=arg0',
      '--param',
      'k=arg1',
      '--json',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const loops: Array<{ contexts: Array<{ caller: string; params: string[]; iterations: number }> }> =
      JSON.parse(stdout).loops;
    expect(loops).toHaveLength(1);
    // One context per call path, merged over the ranks: each rank counted 2 iterations in each.
    expect(loops[0]!.contexts.map((context) => [context.caller, context.iterations])).toEqual([
      ['sub', 4],
      ['world', 4],
    ]);
    const paramsVia = (caller: string) =>
      new Set(
        loops[0]!.contexts.filter((context) => context.caller === caller).map((context) => context.params.join(',')),
      );
    expect(paramsVia('sub')).toEqual(new Set(['c,k,p']));
    expect(paramsVia('world')).toEqual(new Set(['p']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
