// The MPI subset (native/include/mpi.h) as proxy applications use it: the ring kernel
// (native/src/mpi_ring.c: 128 KiB Isends posted before the Irecvs, Waitall with MPI_REQUEST_NULL,
// collectives, Comm_split, probes, derived types) passes its own checks on several rank counts; a
// real deadlock through the MPI calls is still one line naming every rank, call and peer; and the
// reduction operators and datatypes combine as C would.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';
import { combine, Datatypes } from '../../src/runtime/spmd/datatypes.js';

const root = join(import.meta.dirname, '..', '..');
const ring = join(root, 'native', 'wasm', 'mpi_ring.wasm');
const dir = mkdtempSync(join(tmpdir(), 'taintlens-mpi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What mpi_ring's Reduce should give: every rank receives both neighbours' values, every round. */
function ringChecksum(ranks: number, doubles: number, rounds: number): number {
  let sum = 0;
  for (let round = 0; round < rounds; round++)
    for (let r = 0; r < ranks; r++) for (let i = 0; i < doubles; i++) sum += 2 * (r * 1000003 + round * 7 + i * 0.5);
  return sum;
}

/** `x` as C's printf("%.6e") writes it. */
function printfExponent(x: number): string {
  const [mantissa, exponent] = x.toExponential(6).split('e');
  const e = Number(exponent);
  return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/**
 * A module whose every rank runs `body` with $r, $p and the MPI imports it needs (memory: a status
 * at 64, requests from 96, 8 pages) and returns `result`.
 */
function mpiModule(name: string, body: string, result = '(i32.const 0)'): string {
  const path = join(dir, `${name}.wasm`);
  writeFileSync(
    path,
    wat(`(module
    (import "taintlens_mp" "rank" (func $rank (result i32)))
    (import "taintlens_mp" "size" (func $size (result i32)))
    (import "taintlens_mp" "mpi_recv" (func $recv (param i32 i32 i32 i32 i32 i32 i32)))
    (import "taintlens_mp" "mpi_irecv" (func $irecv (param i32 i32 i32 i32 i32 i32 i32)))
    (import "taintlens_mp" "mpi_waitall" (func $waitall (param i32 i32 i32)))
    (import "taintlens_mp" "mpi_send" (func $send (param i32 i32 i32 i32 i32 i32)))
    (import "taintlens_mp" "mpi_isend" (func $isend (param i32 i32 i32 i32 i32 i32 i32)))
    (memory (export "memory") 8)
    (func (export "run") (result i32) (local $r i32) (local $p i32)
      (local.set $r (call $rank))
      (local.set $p (call $size))
      ${body}
      ${result}))`),
  );
  return path;
}

describe('MPI subset', () => {
  test.each([1, 2, 3, 5])('the ring kernel passes every check of its own on %i rank(s)', async (ranks) => {
    const { code, stdout, stderr } = await cli(['run', ring, '--ranks', String(ranks), '--', '16384', '2']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/FAILED/);
    expect(stdout).toContain(`all checks passed on ${ranks} ranks`);
    expect(stdout).toContain('exit code (rank 0): 0');
    expect(stdout).toContain(`ring checksum ${printfExponent(ringChecksum(ranks, 16384, 2))} over ${ranks} ranks`);
  });

  test('a deadlock through MPI_Recv names every rank, its call and its peer', async () => {
    const file = mpiModule(
      'mpi_deadlock',
      `
      ;; every rank receives from its right neighbour first; nobody sends
      (call $recv (i32.const 0) (i32.const 1) (i32.const 7) (i32.rem_u (i32.add (local.get $r) (i32.const 1)) (local.get $p)) (i32.const 0) (i32.const 0) (i32.const 64))`,
    );
    const { code, stderr } = await cli(['run', file, '--ranks', '3', '--timeout', '20']);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /mpi_deadlock\.wasm: rank \d: deadlock: every rank is blocked or done \(rank 0 in recv from 1, rank 1 in recv from 2, rank 2 in recv from 0\)/,
    );
  });

  test('a deadlock in MPI_Waitall on receives names the awaited peers', async () => {
    const file = mpiModule(
      'mpi_wait_deadlock',
      `
      (call $irecv (i32.const 0) (i32.const 1) (i32.const 7) (i32.rem_u (i32.add (local.get $r) (i32.const 1)) (local.get $p)) (i32.const 0) (i32.const 0) (i32.const 96))
      (call $waitall (i32.const 1) (i32.const 96) (i32.const 0))`,
    );
    const { code, stderr } = await cli(['run', file, '--ranks', '2', '--timeout', '20']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/deadlock: every rank is blocked or done \(rank 0 in wait from 1, rank 1 in wait from 0\)/);
  });
});

describe('MPI flow control and receive matching', () => {
  const KIB128 = 131072;
  const peer = '(i32.sub (i32.const 1) (local.get $r))';

  test('128 KiB Isends posted by both ranks before any receive complete, and the data arrives', async () => {
    // MPI_BYTE is 4; each rank fills 128 KiB at 65536 with its rank + 1 and receives its peer's at 262144.
    const file = mpiModule(
      'mpi_large_isend',
      `
      (memory.fill (i32.const 65536) (i32.add (local.get $r) (i32.const 1)) (i32.const ${KIB128}))
      (call $isend (i32.const 65536) (i32.const ${KIB128}) (i32.const 4) ${peer} (i32.const 1) (i32.const 0) (i32.const 96))
      (call $isend (i32.const 65536) (i32.const ${KIB128}) (i32.const 4) ${peer} (i32.const 2) (i32.const 0) (i32.const 100))
      (call $irecv (i32.const 262144) (i32.const ${KIB128}) (i32.const 4) ${peer} (i32.const 2) (i32.const 0) (i32.const 104))
      (call $recv (i32.const 393216) (i32.const ${KIB128}) (i32.const 4) ${peer} (i32.const 1) (i32.const 0) (i32.const 64))
      (call $waitall (i32.const 3) (i32.const 96) (i32.const 0))`,
      `(i32.add (i32.mul (i32.load8_u (i32.const ${262144 + KIB128 - 1})) (i32.const 10)) (i32.load8_u (i32.const 393216)))`,
    );
    const { code, stdout, stderr } = await cli(['run', file, '--ranks', '2', '--timeout', '20', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // Rank 0 gets rank 1's bytes (2) in both buffers, rank 1 rank 0's (1).
    expect(JSON.parse(stdout).spmd.perRank.map((r: { result: number }) => r.result)).toEqual([22, 11]);
  });

  test('MPI_Recv matches after an earlier MPI_Irecv of the same source and tag (receives match in the order posted)', async () => {
    const file = mpiModule(
      'mpi_recv_order',
      `
      (if (i32.eqz (local.get $r))
        (then
          (i32.store (i32.const 200) (i32.const 11))
          (call $send (i32.const 200) (i32.const 4) (i32.const 4) (i32.const 1) (i32.const 5) (i32.const 0))
          (i32.store (i32.const 200) (i32.const 22))
          (call $send (i32.const 200) (i32.const 4) (i32.const 4) (i32.const 1) (i32.const 5) (i32.const 0)))
        (else
          (call $irecv (i32.const 300) (i32.const 4) (i32.const 4) (i32.const 0) (i32.const 5) (i32.const 0) (i32.const 96))
          (call $recv (i32.const 304) (i32.const 4) (i32.const 4) (i32.const 0) (i32.const 5) (i32.const 0) (i32.const 64))
          (call $waitall (i32.const 1) (i32.const 96) (i32.const 0))))`,
      '(i32.add (i32.mul (i32.load (i32.const 300)) (i32.const 100)) (i32.load (i32.const 304)))',
    );
    const { code, stdout, stderr } = await cli(['run', file, '--ranks', '2', '--timeout', '20', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).spmd.perRank.map((r: { result: number }) => r.result)).toEqual([0, 1122]);
  });

  test('a real deadlock behind an unmatched 128 KiB message is still one line naming ranks, calls and peers', async () => {
    // Rank 0's large message has tag 1; rank 1 waits for tag 3, rank 0 for a reply: nobody can move.
    const file = mpiModule(
      'mpi_large_deadlock',
      `
      (if (i32.eqz (local.get $r))
        (then
          (call $isend (i32.const 65536) (i32.const ${KIB128}) (i32.const 4) (i32.const 1) (i32.const 1) (i32.const 0) (i32.const 96))
          (call $recv (i32.const 0) (i32.const 4) (i32.const 4) (i32.const 1) (i32.const 2) (i32.const 0) (i32.const 64)))
        (else
          (call $recv (i32.const 0) (i32.const 4) (i32.const 4) (i32.const 0) (i32.const 3) (i32.const 0) (i32.const 64))))`,
    );
    const { code, stderr } = await cli(['run', file, '--ranks', '2', '--timeout', '20']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/deadlock: every rank is blocked or done \(rank 0 in recv from 1, rank 1 in recv from 0\)/);
  });
});

describe('MPI datatypes and operators', () => {
  const i32 = (...v: number[]) => new Uint8Array(Int32Array.from(v).buffer);
  const ints = (b: Uint8Array) => [...new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4)];

  test('logical and bitwise operators on MPI_INT (handles as in mpi.h)', () => {
    const land = i32(0, 3, 5);
    combine(land, i32(2, 0, -1), 3, 7, 5);
    expect(ints(land)).toEqual([0, 0, 1]);
    const bor = i32(0b1010, 0);
    combine(bor, i32(0b0101, 0), 2, 7, 8);
    expect(ints(bor)).toEqual([0b1111, 0]);
    const bxor = i32(6);
    combine(bxor, i32(3), 1, 7, 10);
    expect(ints(bxor)).toEqual([5]);
  });

  test('unsigned char sums wrap at 256 and unsigned long long products at 2^64', () => {
    const bytes = new Uint8Array([250, 1]);
    combine(bytes, new Uint8Array([10, 2]), 2, 3, 3);
    expect([...bytes]).toEqual([4, 3]);
    const wide = new Uint8Array(new BigUint64Array([2n ** 63n]).buffer);
    combine(wide, new Uint8Array(new BigUint64Array([3n]).buffer), 1, 12, 4);
    expect(new BigUint64Array(wide.buffer)[0]).toBe(2n ** 63n);
  });

  test('MINLOC on MPI_DOUBLE_INT keeps the smaller value, and the lower index on a tie', () => {
    const pair = (value: number, index: number) => {
      const view = new DataView(new ArrayBuffer(16));
      view.setFloat64(0, value, true);
      view.setInt32(8, index, true);
      return new Uint8Array(view.buffer);
    };
    const read = (b: Uint8Array) => [
      new DataView(b.buffer).getFloat64(0, true),
      new DataView(b.buffer).getInt32(8, true),
    ];
    const a = pair(2.5, 4);
    combine(a, pair(1.5, 7), 1, 31, 11);
    expect(read(a)).toEqual([1.5, 7]);
    combine(a, pair(1.5, 2), 1, 31, 11);
    expect(read(a)).toEqual([1.5, 2]);
  });

  test('operators that do not apply to a type are errors, not silent results', () => {
    expect(() => combine(new Uint8Array(8), new Uint8Array(8), 1, 14, 6)).toThrow(
      /MPI_BAND does not apply to MPI_DOUBLE/,
    );
    expect(() => combine(new Uint8Array(4), new Uint8Array(4), 1, 7, 11)).toThrow(
      /MPI_MINLOC does not apply to MPI_INT/,
    );
    expect(() => combine(new Uint8Array(16), new Uint8Array(16), 1, 15, 3)).toThrow(
      /long double reductions are not supported/,
    );
  });

  test('a vector type is its blocks within its extent; it must be committed before use', () => {
    const types = new Datatypes();
    const handle = types.vector(3, 2, 4, 7, 'MPI_Type_vector(3, 2, 4)');
    expect(() => types.layout(handle)).toThrow(/before MPI_Type_commit/);
    types.commit(handle);
    expect(types.layout(handle)).toMatchObject({
      size: 24,
      extent: 40,
      segments: [
        [0, 8],
        [16, 8],
        [32, 8],
      ],
      base: 7,
    });
  });
});
