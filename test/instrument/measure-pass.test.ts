import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runRegions } from '../../src/experiment/region-run.js';
import { coefficientOfVariation } from '../../src/experiment/region-profile.js';
import { plainResult } from '../helpers/profile.js';
import { wat } from '../helpers/wat.js';

const hot = readFileSync('native/wasm/hot_helper.wasm');
const base = { file: 'hot_helper.wasm', bytes: hot, invoke: 'run', argv: [], repeat: 2, timeoutMs: 20_000 };

describe('measurement pass', () => {
  it('counts visits per region call path exactly and keeps the result', async () => {
    const reps = await runRegions({ ...base, args: ['50', '7'], functions: null, trace: 3 });
    expect(reps[0]!.result).toBe(await plainResult(hot, [50, 7]));
    for (const rep of reps) {
      const byPath = new Map(rep.regions.map((r) => [r.callpath, r]));
      expect(byPath.get('run')!.visits).toBe(1);
      expect(byPath.get('run->sweep')!.visits).toBe(1);
      expect(byPath.get('run->relax')!.visits).toBe(1);
      const smooth = byPath.get('run->sweep->smooth')!;
      expect(smooth.visits).toBe(64 * 50);
      expect(smooth.later.count).toBe(64 * 50 - 1);
      expect(smooth.trace).toHaveLength(3);
      expect(smooth.later.minMs).toBeLessThanOrEqual(smooth.later.meanMs);
      expect(smooth.later.maxMs).toBeGreaterThanOrEqual(smooth.later.meanMs);
      // Inclusive time contains the callees' time; exclusive does not.
      const sweep = byPath.get('run->sweep')!;
      expect(sweep.inclusiveMs).toBeGreaterThanOrEqual(smooth.inclusiveMs);
      expect(sweep.exclusiveMs).toBeCloseTo(sweep.inclusiveMs - smooth.inclusiveMs, 6);
    }
  });

  it('leaves functions that are not regions out: their time counts to the region that called them', async () => {
    const [rep] = await runRegions({ ...base, repeat: 1, args: ['20', '3'], functions: ['run', 'sweep'] });
    expect(rep!.regions.map((r) => r.callpath).sort()).toEqual(['run', 'run->sweep']);
  });

  it('keeps the first visit apart and computes Welford statistics that match the trace', async () => {
    // f(k) spins k iterations; called with k = 1, 2, ..., 6: a long trace to compare against.
    const bytes = wat(`(module
      (func $spin (param $k i32) (local $i i32) (local.set $i (i32.mul (local.get $k) (i32.const 20000)))
        (block $done (loop $l (br_if $done (i32.eqz (local.get $i))) (local.set $i (i32.sub (local.get $i) (i32.const 1))) (br $l))))
      (func (export "run") (param $n i32) (local $j i32)
        (block $done (loop $l (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
          (local.set $j (i32.add (local.get $j) (i32.const 1))) (call $spin (local.get $j)) (br $l))))
      (memory (export "memory") 1))`);
    const [rep] = await runRegions({
      ...base,
      file: 'spin.wasm',
      bytes,
      repeat: 1,
      args: ['6'],
      functions: null,
      trace: 8,
    });
    const spin = rep!.regions.find((r) => r.function === 'spin')!;
    expect(spin.visits).toBe(6);
    const durations = spin.trace.map(([, d]) => d);
    expect(durations).toHaveLength(6);
    expect(spin.firstMs).toBe(durations[0]);
    const later = durations.slice(1);
    const mean = later.reduce((a, b) => a + b, 0) / later.length;
    expect(spin.later.meanMs).toBeCloseTo(mean, 9);
    expect(spin.later.minMs).toBe(Math.min(...later));
    expect(spin.later.maxMs).toBe(Math.max(...later));
    const sd = Math.sqrt(later.reduce((a, d) => a + (d - mean) ** 2, 0) / (later.length - 1));
    expect(coefficientOfVariation(spin.later)).toBeCloseTo(sd / mean, 6);
  });
});
