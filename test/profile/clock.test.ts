// Programs that read the clock: analyses run on a virtual clock by default (every repetition counts
// the same), and with the real clock the spread between repetitions is reported instead of failing.
import { expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';
import { tempDir } from '../helpers/temp.js';

/** A WASI command that loops (monotonic clock in µs mod 997) + 1 times. */
const clocked = wat(`(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $now (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (global $sum (export "sum") (mut i32) (i32.const 0))
  (func (export "_start") (local $n i32) (local $i i32)
    (drop (call $now (i32.const 1) (i64.const 1) (i32.const 0)))
    (local.set $n (i32.add (i32.const 1) (i32.wrap_i64 (i64.rem_u (i64.div_u (i64.load (i32.const 0)) (i64.const 1000)) (i64.const 997)))))
    (block $done (loop $repeat
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (global.set $sum (i32.add (global.get $sum) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $repeat)))))`);

const dir = tempDir('taintlens-clock-');
const module = join(dir, 'clocked.wasm');
writeFileSync(module, clocked);

interface Report {
  loops: Array<{ iterations: number }>;
  spread?: { repetitions: number; loops: Array<{ iterations: { min: number; max: number } }> };
}

test('the virtual clock (default for loops) makes repetitions count the same', async () => {
  const { code, stdout } = await cli(['loops', module, '--repeat', '3', '--json']);
  expect(code).toBe(0);
  const report = JSON.parse(stdout) as Report;
  expect(report.spread).toBeUndefined();
  // The first virtual reading is 1 ms after 2024-01-01T00:00:00Z: (1704067200001000 µs mod 997) + 1.
  expect(report.loops[0]!.iterations).toBe(Number(1704067200001000n % 997n) + 1);
});

test('with the real clock, differing repetitions report their spread', async () => {
  const { code, stdout } = await cli(['loops', module, '--repeat', '5', '--clock', 'real', '--json']);
  expect(code).toBe(0);
  const report = JSON.parse(stdout) as Report;
  expect(report.spread?.repetitions).toBe(5);
  const range = report.spread!.loops[0]!.iterations;
  expect(range.min).toBeLessThan(range.max);
  const text = await cli(['loops', module, '--repeat', '5', '--clock', 'real']);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/warning: counts differ between the 5 repetitions .*1 loop context\(s\) differ/);
});
