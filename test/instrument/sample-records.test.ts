// Short sample records (instrument/passes/sample-record.ts, SHORT_RECORD in layouts.ts): a sample
// repeating the previous record's context node, allocation-log length and stack pointer is written
// in 4 or 8 bytes of header instead of 20. The decoded samples are the ones full records give — with
// a buffer emptied mid-run too (a short record refers to the one before it across the drain) — and
// a host that does not empty the buffer keeps what fits and counts the rest as dropped.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { decodeSamples, runSampled, type SampledRun } from '../../src/blame/sample-run.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { SAMPLE_RECORD, sampleRecordBytes } from '../../instrument/layouts.js';
import { passImports } from '../../src/runtime/host.js';
import type { SampleLayout, SampleOptions } from '../../instrument/passes/sample.js';
import { wat } from '../helpers/wat.js';
import { samplesOf } from '../helpers/samples.js';

// $row stores one element per iteration (its samples share a node: short records); run calls it per
// row and stores a row sum (its samples have another node: full records between the short ones).
const MODULE = wat(`(module
  (memory (export "memory") 2)
  (func $row (param $r i32) (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $col
      (local.set $s (i32.add (local.get $s) (i32.mul (local.get $i) (local.get $r))))
      (i32.store offset=4096 (i32.shl (i32.add (i32.mul (local.get $r) (local.get $n)) (local.get $i)) (i32.const 2))
        (local.get $s))
      (br_if $col (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "run") (param $rows i32) (param $n i32) (result i32) (local $r i32) (local $t i32)
    (loop $rows
      (local.set $t (i32.add (local.get $t) (call $row (local.get $r) (local.get $n))))
      (i32.store offset=1024 (i32.shl (i32.and (local.get $r) (i32.const 255)) (i32.const 2)) (local.get $t))
      (br_if $rows (i32.lt_s (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $rows))))
    (local.get $t))
)`);
const ARGS = ['40', '60'];

const sampled = (bytes: Uint8Array, args: string[], period: number, sample: SampleOptions): Promise<SampledRun> =>
  runSampled(
    'fixture.wasm',
    bytes,
    { invoke: 'run', args, argv: [], repeat: 1, timeoutMs: 20_000 },
    { period, instrument: { sample } },
  );

/** The module run in this process with the default imports (a host that never empties the sample buffer). */
function runWithoutDrain(sample: SampleOptions) {
  const { bytes, sites } = instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample });
  const layout = sites.passes.sample as SampleLayout;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), {
    taintlens: passImports(),
  });
  (instance.exports.run as (...args: number[]) => number)(...ARGS.map(Number));
  const global = (name: string) => Number((instance.exports[name] as WebAssembly.Global).value);
  const memory = instance.exports.memory as WebAssembly.Memory;
  const end = global(layout.exports.samples);
  const records = new Uint8Array(memory.buffer.slice(layout.samples.base, end));
  return { layout, bytes: end - layout.samples.base, records, dropped: global(layout.exports.dropped) };
}

describe('sampling: short records', () => {
  test.each([5, 97, 4999])(
    'period %i: the samples full records give, also with a buffer emptied mid-run',
    async (period) => {
      const full = await sampled(MODULE, ARGS, period, { shortRecords: false });
      const short = await sampled(MODULE, ARGS, period, {});
      const tiny = await sampled(MODULE, ARGS, period, { maxSamples: 3 });
      expect(full.samples.length).toBeGreaterThan(2);
      expect(samplesOf(short)).toEqual(samplesOf(full));
      expect(samplesOf(tiny)).toEqual(samplesOf(full));
      expect([short.dropped, tiny.dropped]).toEqual([0, 0]);
    },
  );

  test('a loop nest with calls, a shadow stack and allocations (elements -O0): the same samples', async () => {
    const file = 'native/wasm/elements_O0.wasm';
    const bytes = readFileSync(file);
    const full = await sampled(bytes, ['3', '2'], 23, { shortRecords: false });
    const short = await sampled(bytes, ['3', '2'], 23, { maxSamples: 5 });
    expect(full.samples.length).toBeGreaterThan(1000);
    expect(new Set(full.samples.map((s) => s.stackPointer)).size).toBeGreaterThan(1);
    expect(samplesOf(short)).toEqual(samplesOf(full));
  });

  test('a sample repeating the context takes its addresses and a word or two, not 20 bytes', () => {
    const { layout, bytes, records, dropped } = runWithoutDrain({ period: 97 });
    const samples = decodeSamples([records], layout, () => []);
    const fullBytes = samples.reduce((sum, s) => sum + sampleRecordBytes(s.addresses.length), 0);
    expect(dropped).toBe(0);
    expect(samples.length).toBeGreaterThan(100);
    expect(bytes).toBeLessThan(fullBytes * 0.45);
    expect(runWithoutDrain({ period: 97, shortRecords: false }).bytes).toBe(fullBytes);
  });

  test('without a host that empties the buffer, what does not fit is counted as dropped', async () => {
    const all = await sampled(MODULE, ARGS, 97, {});
    const { layout, records, dropped } = runWithoutDrain({ period: 97, maxSamples: 4 });
    const kept = decodeSamples([records], layout, () => []);
    // Room for 4 of the longest records (52 bytes) holds 8 full ones of one address; short ones, twice that and more.
    expect(kept.length).toBeGreaterThan((2 * 4 * SAMPLE_RECORD.size) / sampleRecordBytes(1));
    expect(dropped).toBeGreaterThan(0);
    expect(kept.length + dropped).toBe(all.samples.length);
    const head = (s: Array<{ region: number; addresses: number[] }>) => s.map((x) => [x.region, x.addresses]);
    expect(head(kept)).toEqual(head(all.samples.slice(0, kept.length)));
  });
});
