// SPMD runs that go wrong end with one line naming the rank, within the time limit, with the
// project's exit codes (1: trap, deadlock, misuse; 124: time limit), and every rank's worker has
// exited when the command returns.
import { describe, expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-spmd-');

/** A module importing taintlens_mp whose `run` has body `body` (locals: $rank, $size). */
function spmdModule(name: string, body: string): string {
  const path = join(dir, `${name}.wasm`);
  writeFileSync(
    path,
    wat(`(module
    (import "taintlens_mp" "rank" (func $rank (result i32)))
    (import "taintlens_mp" "size" (func $size (result i32)))
    (import "taintlens_mp" "send" (func $send (param i32 i32 i32 i32)))
    (import "taintlens_mp" "recv" (func $recv (param i32 i32 i32 i32) (result i32)))
    (import "taintlens_mp" "barrier" (func $barrier))
    (import "taintlens_mp" "bcast" (func $bcast (param i32 i32 i32)))
    (import "taintlens_mp" "reduce" (func $reduce (param i32 i32 i32 i32 i32 i32)))
    (memory (export "memory") 1)
    (func (export "run") (result i32) (local $r i32) (local $p i32)
      (local.set $r (call $rank))
      (local.set $p (call $size))
      ${body}))`),
  );
  return path;
}

const deadlock = spmdModule(
  'deadlock',
  `
  ;; every rank waits for its right neighbour before sending anything
  (drop (call $recv (i32.const 0) (i32.const 4) (i32.rem_u (i32.add (local.get $r) (i32.const 1)) (local.get $p)) (i32.const 0)))
  (call $send (i32.const 0) (i32.const 4) (i32.rem_u (i32.add (local.get $r) (i32.const 1)) (local.get $p)) (i32.const 0))
  (local.get $r)`,
);
const trap = spmdModule(
  'trap',
  `
  (if (i32.eq (local.get $r) (i32.const 2)) (then unreachable))
  (call $barrier)
  (local.get $r)`,
);
const spin = spmdModule(
  'spin',
  `
  (if (i32.eq (local.get $r) (i32.const 1)) (then (loop $forever (br $forever))))
  (call $barrier)
  (local.get $r)`,
);
const earlyExit = spmdModule(
  'early',
  `
  ;; rank 0 returns at once; the others wait for a message it never sends
  (if (i32.ne (local.get $r) (i32.const 0)) (then (drop (call $recv (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 0)))))
  (local.get $r)`,
);
const mismatched = spmdModule(
  'mismatch',
  `
  (if (i32.eq (local.get $r) (i32.const 0)) (then (call $barrier)) (else (call $reduce (i32.const 0) (i32.const 8) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0))))
  (local.get $r)`,
);
const wrongTag = spmdModule(
  'tag',
  `
  (if (i32.eq (local.get $r) (i32.const 0))
    (then (call $send (i32.const 0) (i32.const 4) (i32.const 1) (i32.const 7)))
    (else (drop (call $recv (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 8)))))
  (local.get $r)`,
);
const ok = spmdModule(
  'ok',
  `
  (call $barrier)
  (i32.add (i32.mul (local.get $r) (i32.const 10)) (local.get $p))`,
);

async function failing(args: string[]) {
  const start = performance.now();
  const outcome = await cli(args);
  return { ...outcome, seconds: (performance.now() - start) / 1000 };
}

describe('SPMD failures', () => {
  test('a deadlock (every rank blocked in recv) is one line naming the ranks, exit 1, long before the time limit', async () => {
    const { code, stdout, stderr, seconds } = await failing(['run', deadlock, '--ranks', '3', '--timeout', '20']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /deadlock\.wasm: rank \d: deadlock: every rank is blocked or done \(rank 0 in recv from 1, rank 1 in recv from 2, rank 2 in recv from 0\)/,
    );
    expect(seconds).toBeLessThan(15);
  });

  test('ranks waiting for a rank that has returned are a deadlock too', async () => {
    const { code, stderr } = await failing(['run', earlyExit, '--ranks', '3']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/rank [12]: deadlock: .*rank 0 done, rank 1 in recv from 0, rank 2 in recv from 0/);
  });

  test('a rank that traps ends the run with its rank named, under every analysis', async () => {
    for (const command of ['run', 'loops', 'taint']) {
      const { code, stdout, stderr } = await failing([command, trap, '--ranks', '4']);
      expect(code, command).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n'), command).toEqual([
        expect.stringMatching(/trap\.wasm: rank 2: trap in run: unreachable/),
      ]);
    }
  });

  test('a rank that never returns hits the time limit: exit 124, with what every rank was doing', async () => {
    // 4 s: threads start slowly on a busy machine (a rank not yet in its export shows as starting).
    const { code, stderr, seconds } = await failing(['run', spin, '--ranks', '3', '--timeout', '4']);
    expect(code).toBe(124);
    expect(stderr).toMatch(
      /spin\.wasm: time limit exceeded: run ran longer than 4 s \(raise it with --timeout\); rank 0 in barrier.*, rank 1 running, rank 2 in barrier/,
    );
    expect(seconds).toBeLessThan(12);
  });

  test('ranks in different collectives, and mismatched tags, are named', async () => {
    const collective = await failing(['run', mismatched, '--ranks', '2']);
    expect(collective.code).toBe(1);
    expect(collective.stderr).toMatch(
      /rank 0: rank 0 called barrier while rank 1 called reduce: every rank must call the same collectives in the same order/,
    );
    const tag = await failing(['run', wrongTag, '--ranks', '2']);
    expect(tag.code).toBe(1);
    expect(tag.stderr).toMatch(/rank 1: rank 1 expected a message with tag 8 from rank 0, the next one has tag 7/);
  });

  test('bad --ranks is a usage error; a module using taintlens_mp runs as one rank without it', async () => {
    const bad = await cli(['run', ok, '--ranks', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--ranks must be a whole number from 1 to 32, got '0'/);
    const single = await cli(['run', ok, '--json']);
    expect(single.code).toBe(0);
    expect(JSON.parse(single.stdout).result).toBe(1);
    const four = await cli(['run', ok, '--ranks', '4', '--json']);
    expect(JSON.parse(four.stdout).spmd.perRank.map((r: { result: number }) => r.result)).toEqual([4, 14, 24, 34]);
  });
});
