// Variable blame of an SPMD run: every rank is sampled against its own memory, and the blame point's
// variables merge over the ranks by name.
import { expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';

interface Report {
  totalSamples: number;
  ranks?: number[];
  blamePoints: Array<{ samples: number; variables: Array<{ name: string; kind: string; percent: number }> }>;
}

async function blame(ranks: number): Promise<Report> {
  const out = await cli([
    'blame',
    'native/wasm/spmd_stencil.wasm',
    '--ranks',
    String(ranks),
    '--args',
    '64,4',
    '--period',
    '997',
    '--json',
  ]);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as Report;
}

test('blame --ranks: each rank sampled, the merged table sums them, the same variables own the work at 2 and 4 ranks', async () => {
  const [two, four] = [await blame(2), await blame(4)];
  for (const [report, p] of [
    [two, 2],
    [four, 4],
  ] as const) {
    expect(report.ranks).toHaveLength(p);
    for (const samples of report.ranks!) expect(samples).toBeGreaterThan(100);
    expect(report.totalSamples).toBe(report.ranks!.reduce((a, b) => a + b, 0));
    expect(report.blamePoints[0]!.samples).toBe(report.totalSamples);
  }
  // The grid's halo grows with p, so four ranks sample a little more work than two.
  expect(four.totalSamples).toBeGreaterThan(two.totalSamples);
  const owners = (r: Report) =>
    r.blamePoints[0]!.variables.filter((v) => v.percent >= 5).map((v) => `${v.name}/${v.kind}`);
  expect(owners(four)).toEqual(owners(two));
}, 60_000);
