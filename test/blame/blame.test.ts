// Variable blame on kernels with a clear owner of the work (issue #14, "Done when"): C kernels
// built by clang at -O2 (native/wasm/blame_kernels.wasm, debug build for source names) and the
// AssemblyScript kernel (build/kernels/blame.wasm).
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { blameModule } from '../../src/blame/blame.js';
import type { BlamePoint } from '../../src/blame/types.js';
import { cli } from '../helpers/cli.js';

const root = join(import.meta.dirname, '..', '..');
const C = join(root, 'native/wasm/debug/blame_kernels.wasm');
const C_STRIPPED = join(root, 'native/wasm/blame_kernels.wasm');
const AS = join(root, 'build/kernels/blame.wasm');

function byName(point: BlamePoint, name: string) {
  const row = point.variables.find((v) => v.name === name);
  if (!row) throw new Error(`no variable ${name} in ${JSON.stringify(point.variables.map((v) => v.name))}`);
  return row;
}

describe('variable blame', () => {
  test('C: a cheap small input and an expensive large output blame the output', async () => {
    const report = await blameModule(C, { invoke: 'fill_then_produce', args: ['100'] });
    expect(report.schema).toBe('taintlens/blame@1');
    const point = report.blamePoints[0]!;
    expect(point.function).toBe('fill_then_produce');
    expect(point.variables[0]).toMatchObject({
      name: 'out',
      kind: 'heap',
      bytes: 100 * 100 * 8,
      allocationSite: 'fill_then_produce->malloc',
    });
    expect(point.variables[0]!.percent).toBeGreaterThan(95);
    // The cheap input gets under 0.1% of the samples: folded into "other".
    expect(point.variables.find((v) => v.name === 'in')?.percent ?? 0).toBeLessThan(1);
    expect(report.result).toBeCloseTo(20799.352107103805, 9);
  }, 60_000);

  test('C without debug info: the same owner, named by its allocation site', async () => {
    const point = (await blameModule(C_STRIPPED, { invoke: 'fill_then_produce', args: ['100'] })).blamePoints[0]!;
    expect(point.variables[0]).toMatchObject({
      kind: 'heap',
      bytes: 80_000,
      allocationSite: 'fill_then_produce->malloc',
    });
    expect(point.variables[0]!.name).toMatch(/^malloc in fill_then_produce \(C\d+\)$/);
    expect(point.variables[0]!.percent).toBeGreaterThan(95);
  }, 60_000);

  test('AssemblyScript: the output array owns the work', async () => {
    const point = (await blameModule(AS, { args: ['100'] })).blamePoints[0]!;
    expect(point.variables[0]).toMatchObject({ name: 'output', kind: 'heap', bytes: 80_000 });
    expect(point.variables[0]!.percent).toBeGreaterThan(95);
  }, 60_000);

  test("a decoder whose state lives in a callee's frame: blame stops there, and that callee becomes a blame point", async () => {
    const report = await blameModule(C, { invoke: 'decode_into', args: ['600', '20'] });
    const [entry, found] = report.blamePoints;
    // The quantizer's if chain flows into its tail (no "control"); the value passed to the void
    // update goes into the state its pointer parameter points to: decode_block's stack frame.
    const other = byName(entry!, 'other');
    expect(other.parts?.map((part) => part.why)).not.toContain('control (branches, loop counters)');
    expect(other.stopsIn?.[0]?.function).toBe('decode_block');
    expect(other.stopsIn![0]!.percent).toBeGreaterThan(70);
    expect(found).toMatchObject({ function: 'decode_block', automatic: true });
    expect(byName(found!, 'stack frame of decode_block').percent).toBeGreaterThan(70);
  }, 60_000);

  test('sparse solve: the solution vector and the matrix values, not the index arrays', async () => {
    // A short run: sampled ten times as densely as the default, for enough samples to rank the variables.
    const point = (await blameModule(C, { invoke: 'sparse_solve', args: ['400', '60'], period: 4999 })).blamePoints[0]!;
    expect(
      point.variables
        .slice(0, 2)
        .map((v) => v.name)
        .sort(),
    ).toEqual(['val', 'x']);
    expect(byName(point, 'x').percent).toBeGreaterThan(30);
    expect(byName(point, 'val').percent).toBeGreaterThan(30);
    expect(byName(point, 'col').percent).toBeLessThan(2);
    expect(byName(point, 'rowptr').percent).toBeLessThan(2);
    // "other" says what it consists of: its parts (why work had no variable, variables folded in) add up to it.
    const other = byName(point, 'other');
    expect(other.parts?.length).toBeGreaterThan(0);
    expect(other.parts!.reduce((sum, part) => sum + part.samples, 0)).toBeCloseTo(other.samples, 0);
  }, 60_000);

  test("blame through a callee's pointer parameter lands on the caller's variable", async () => {
    const report = await blameModule(C, {
      invoke: 'through_callee',
      args: ['2000', '50'],
      blamePoints: ['through_callee', 'smooth_into'],
    });
    const [caller, callee] = report.blamePoints;
    expect(caller!.variables[0]).toMatchObject({ name: 'field', kind: 'heap', bytes: 16_000 });
    expect(caller!.variables[0]!.percent).toBeGreaterThan(95);
    // At the callee the same container is its parameter.
    expect(callee!.variables[0]).toMatchObject({ name: 'field', kind: 'parameter', bytes: 16_000 });
    expect(callee!.samples).toBeLessThan(caller!.samples);
  }, 60_000);

  test("a struct's fields roll up into the struct (C and AssemblyScript)", async () => {
    const c = (await blameModule(C, { invoke: 'struct_fields', args: ['500', '40'] })).blamePoints[0]!;
    expect(c.variables[0]).toMatchObject({ name: 'panel', kind: 'heap', bytes: 3 * 500 * 8 });
    expect(c.variables[0]!.percent).toBeGreaterThan(95);
    expect(c.variables[0]!.fields!.map((f) => f.name).sort()).toEqual(['a', 'l2', 'u']);
    const sum = c.variables[0]!.fields!.reduce((s, f) => s + f.samples, 0);
    expect(sum).toBeCloseTo(c.variables[0]!.samples, 0);
    const as = (await blameModule(AS, { invoke: 'fields', args: ['500', '40'] })).blamePoints[0]!;
    expect(as.variables[0]!.percent).toBeGreaterThan(95);
    expect(as.variables[0]!.fields!.map((f) => f.name).sort()).toEqual(['a', 'l2', 'u']);
  }, 60_000);

  test('the same run gives the same samples; --period sets their number', async () => {
    const a = await blameModule(C, { invoke: 'fill_then_produce', args: ['60'], period: 500 });
    const b = await blameModule(C, { invoke: 'fill_then_produce', args: ['60'], period: 500 });
    const c = await blameModule(C, { invoke: 'fill_then_produce', args: ['60'], period: 2000 });
    expect(b).toEqual(a);
    expect(a.period).toBe(500);
    expect(a.totalSamples / c.totalSamples).toBeGreaterThan(3.5);
    expect(a.totalSamples / c.totalSamples).toBeLessThan(4.5);
  }, 60_000);
});

describe('C globals', () => {
  const GLOBALS = join(root, 'native/wasm/debug/blame_globals.wasm');
  const GLOBALS_STRIPPED = join(root, 'native/wasm/blame_globals.wasm');

  test('-g: samples in static arrays are charged to the globals by name, with their sizes (DWARF .debug_info)', async () => {
    const report = await blameModule(GLOBALS, { argv: ['64', '20'] });
    expect(report.stdout).toBe('3.945745 12\n');
    const point = report.blamePoints[0]!;
    expect(point.function).toBe('main');
    const grid = byName(point, 'grid'),
      next = byName(point, 'next'),
      histogram = byName(point, 'histogram');
    expect(grid).toMatchObject({ kind: 'static', bytes: 96 * 96 * 8 });
    expect(next).toMatchObject({ kind: 'static', bytes: 96 * 96 * 8 });
    expect(histogram).toMatchObject({ kind: 'static', bytes: 16 * 4 });
    // The sweep writes next and copies it back to grid: both take a large share; the histogram little.
    expect(grid.percent).toBeGreaterThan(15);
    expect(next.percent).toBeGreaterThan(15);
    expect(histogram.percent).toBeLessThan(2);
    expect(point.variables.some((v) => v.name.startsWith('static data'))).toBe(false);
  }, 60_000);

  test('without -g the same samples stay "static data at 0x…" (no names in the module)', async () => {
    const point = (await blameModule(GLOBALS_STRIPPED, { argv: ['64', '20'] })).blamePoints[0]!;
    expect(point.variables.some((v) => v.name === 'grid' || v.name === 'next')).toBe(false);
    expect(point.variables.filter((v) => v.kind === 'static').length).toBeGreaterThan(0);
    expect(point.variables.filter((v) => v.kind === 'static').every((v) => v.name.startsWith('static data'))).toBe(
      true,
    );
  }, 60_000);
});

describe('taintlens blame / sample', () => {
  test('blame on the mini-app: a table, and JSON with the contract', async () => {
    const text = await cli(['blame', 'build/kernels/miniapp.wasm', '--args', '8,3,4,2,3']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^blame point run: /);
    expect(text.stdout).toMatch(/\n {2}\.force +heap/);
    const json = await cli(['blame', 'build/kernels/miniapp.wasm', '--args', '8,3,4,2,3', '--json']);
    const report = JSON.parse(json.stdout);
    expect(report.schema).toBe('taintlens/blame@1');
    for (const v of report.blamePoints[0].variables)
      expect(Object.keys(v)).toEqual(
        expect.arrayContaining(['name', 'kind', 'bytes', 'allocationSite', 'samples', 'percent']),
      );
  }, 60_000);

  test('an unknown blame point is a usage error', async () => {
    const out = await cli([
      'blame',
      'native/wasm/blame_kernels.wasm',
      '--invoke',
      'through_callee',
      '--args',
      '10,1',
      '--blame-point',
      'nosuch',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/blame_kernels\.wasm: --blame-point: no function 'nosuch'/);
  }, 60_000);

  test('the sampled profile per call path agrees with the exact loop profile', async () => {
    // A short run: sampled ten times as densely as the default (--period 4999), for over 1,000 samples.
    const out = await cli([
      'sample',
      'build/kernels/miniapp.wasm',
      '--args',
      '16,5,4,2,3',
      '--period',
      '4999',
      '--json',
    ]);
    expect(out.code).toBe(0);
    const profile = JSON.parse(out.stdout);
    expect(profile.schema).toBe('taintlens/sample@1');
    expect(profile.totalSamples).toBeGreaterThan(1000);
    expect(profile.maxErrorPoints).toBeLessThan(2);
    // Chance alone allows more than that at this many samples (every ~4,999th instruction is sampled).
    expect(profile.expectedErrorPoints).toBeGreaterThan(profile.maxErrorPoints);
    expect(profile.callpaths[0].callpath).toMatch(/computeForces|updateRegions/);
  }, 60_000);
});
