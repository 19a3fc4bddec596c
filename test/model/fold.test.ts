// Library call paths fold into their program callers before modelling (issue 28.2): gemm as a
// command (native/wasm/gemm_cmd.wasm, `measure --mode full` over ni, nj, nk; instruction counts of
// five of its call paths in the fixture) has atoi, printf_core and dlmalloc call paths whose counts
// depend on the digits and the allocator, not on the sizes; by default their cost goes to main.
import { describe, expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';
import { foldLibraryCallpaths, foldTarget } from '../../src/model/fold.js';
import { wholeAtLeastParts } from '../../src/model/root.js';
import { DEFAULT_GROWTH, modelExperiment } from '../../src/model/modeler.js';
import { growthAboveNoise, keepAboveNoise, MIN_GROWTH_ABOVE_NOISE } from '../../src/model/noise-findings.js';
import type { Experiment } from '../../src/model/types.js';
import { isLibraryFunction } from '../../instrument/debug/library-code.js';

const isLibrary = (fn: string) => isLibraryFunction(fn, [], false);

describe('folding library call paths', () => {
  test('the nearest program caller takes an exclusive cost; visits of library code are dropped', () => {
    expect(foldTarget('main->printf->vfprintf->printf_core', isLibrary)).toBe('main');
    expect(foldTarget('main->kernel', isLibrary)).toBeUndefined();
    expect(foldTarget('<root>', isLibrary)).toBeUndefined();
    const experiment: Experiment = {
      source: 'x.jsonl',
      params: ['n'],
      series: [
        { callpath: 'main', metric: 'time', params: ['n'], points: [{ coords: [2], values: [1, 2, 3] }] },
        { callpath: 'main->atoi', metric: 'time', params: ['n'], points: [{ coords: [2], values: [10, 20, 30] }] },
        {
          callpath: 'main->printf->printf_core',
          metric: 'instructions',
          params: ['n'],
          points: [{ coords: [2], values: [7] }],
        },
        {
          callpath: 'main->printf->printf_core',
          metric: 'visits',
          params: ['n'],
          points: [{ coords: [2], values: [1] }],
        },
      ],
    };
    const { experiment: folded, folded: count } = foldLibraryCallpaths(experiment, isLibrary);
    expect(count).toBe(2);
    expect(folded.series.map((s) => `${s.metric} ${s.callpath} ${s.points[0]!.values.join(',')}`)).toEqual([
      'time main 11,22,33',
      'instructions main 7',
    ]);
    // The input is not modified.
    expect(experiment.series[0]!.points[0]!.values).toEqual([1, 2, 3]);
  });

  test('gemm_cmd: by default main and kernel_gemm, with a line saying what was folded; --all models every call path', async () => {
    const fixture = 'test/model/fixtures/gemm-cmd.jsonl';
    const folded = await cli(['model', fixture, '--json']);
    const document = JSON.parse(folded.stdout) as { foldedLibraryCallpaths: number; models: { callpath: string }[] };
    expect(document.foldedLibraryCallpaths).toBe(3);
    expect(document.models.map((m) => m.callpath).sort()).toEqual([
      '<root>',
      'main_void->main',
      'main_void->main->kernel_gemm',
    ]);
    const text = await cli(['model', fixture]);
    expect(text.stdout).toContain(
      '3 call path(s) of library code (libc, the runtime) folded into their callers; --all models them',
    );
    const all = await cli(['model', fixture, '--all', '--json']);
    const every = JSON.parse(all.stdout) as {
      foldedLibraryCallpaths: number;
      models: { callpath: string; exact: boolean; model: string }[];
    };
    expect(every.foldedLibraryCallpaths).toBe(0);
    expect(every.models).toHaveLength(6);
    // main's own count is a polynomial: 174 + 21·nj·nk + 18·ni·nk + 93/2·ni·nj + 24·nk + 102·ni.
    expect(every.models.find((m) => m.callpath === 'main_void->main')).toMatchObject({
      exact: true,
      model: '174 + 21 * nj * nk + 18 * ni * nk + 93/2 * ni * nj + 24 * nk + 102 * ni',
    });
    // atoi's count follows the digits of its argument: no closed form, found out quickly.
    expect(every.models.find((m) => m.callpath.endsWith('atoi'))?.exact).toBe(false);
  });
});

describe('<root> is the whole program', () => {
  test('lu: the instructions of <root> are the sum of its call paths, and so is its exact model', async () => {
    const run = await cli(['model', 'test/model/fixtures/lu-polybench.jsonl', '--json']);
    const models = (
      JSON.parse(run.stdout) as { models: { callpath: string; exact: boolean; model: string; prediction: number }[] }
    ).models;
    const root = models.find((m) => m.callpath === '<root>')!;
    const parts = models.filter((m) => m !== root);
    expect(root.exact).toBe(true);
    // run: 99 + 75/2·n² + 75·n; run->kernel_lu: 67 + 20/3·n³ + 45·n² − 139/6·n.
    expect(root.model).toBe('166 + 20/3 * n^3 + 165/2 * n^2 + 311/6 * n');
    expect(root.prediction).toBeCloseTo(
      parts.reduce((sum, m) => sum + m.prediction, 0),
      0,
    );
  });

  test("measure's own <root> count is one of the parts; the whole's exact form is the sum of the parts' forms", () => {
    const sizes = [2, 3, 4, 5, 6, 7, 8, 9];
    const series = (callpath: string, count: (n: number) => number) => ({
      callpath,
      metric: 'instructions',
      params: ['n'],
      points: sizes.map((n) => ({ coords: [n], values: [count(n), count(n)] })),
    });
    const experiment: Experiment = {
      source: 'measure.jsonl',
      params: ['n'],
      series: [
        // What ran outside every region: 2 instructions at every point.
        series('<root>', () => 2),
        series('main->sum_squares', (n) => (n * (n + 1) * (2 * n + 1)) / 6),
        series('main->pairs', (n) => (n * (n - 1)) / 2),
      ],
    };
    const report = modelExperiment(experiment, { aggregate: 'median', growth: DEFAULT_GROWTH, wholeProgram: true });
    const root = report.models.find((m) => m.callpath === '<root>')!;
    expect(root.exact).toBe(true);
    // 2 + (1/3·n³ + 1/2·n² + 1/6·n) + (1/2·n² − 1/2·n): fractions added exactly.
    expect(root.model).toBe('2 + 1/3 * n^3 + n^2 - 1/3 * n');
    expect(root.prediction).toBe(2 + (9 * 10 * 19) / 6 + (9 * 8) / 2);
    expect(root.flags).not.toContain('parts-sum');
  });

  test('a whole run whose own model predicts less than its parts together takes their sum, flagged', () => {
    expect(wholeAtLeastParts(5, [3, 4])).toEqual({ prediction: 7, raised: true });
    expect(wholeAtLeastParts(9, [3, 4, -1])).toEqual({ prediction: 9, raised: false });
  });
});

describe('findings above the noise', () => {
  test('a sub-millisecond call path is too short to model: its median, no formula, no finding', async () => {
    // gemm_cmd's kernel at 8…24: 0.005–0.15 ms per run, timer noise.
    const lines: string[] = [];
    for (const n of [8, 12, 16, 20, 24]) {
      for (const r of [0, 1, 2]) {
        lines.push(
          JSON.stringify({
            params: { n },
            callpath: 'main->kernel',
            metric: 'time',
            value: 1e-5 * n ** 3 * (1 + 0.3 * ((r * 7 + n) % 3)),
          }),
        );
        lines.push(
          JSON.stringify({ params: { n }, callpath: '<root>', metric: 'time', value: 20 + 0.002 * n ** 3 + r * 0.01 }),
        );
      }
    }
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'taintlens-short-'));
    try {
      writeFileSync(join(dir, 'm.jsonl'), lines.join('\n') + '\n');
      const json = JSON.parse((await cli(['model', join(dir, 'm.jsonl'), '--json'])).stdout) as {
        models: { callpath: string; flags: string[]; terms: { factors: unknown[] }[] }[];
      };
      const kernel = json.models.find((m) => m.callpath === 'main->kernel')!;
      expect(kernel.flags).toContain('too-short');
      expect(kernel.terms).toHaveLength(1);
      expect(kernel.terms[0]!.factors).toEqual([]);
      const text = (await cli(['model', join(dir, 'm.jsonl'), '--wide'])).stdout;
      expect(text).toMatch(/main->kernel\s+too short to model/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('growth a constant explains within the noise is no finding; growth far above it is, with the figure', () => {
    const y = [10, 10.2, 9.9, 10.1, 10.3];
    expect(growthAboveNoise(y, [10, 10.05, 10.1, 10.15, 10.2], 0.01 ** 2)).toBeLessThan(MIN_GROWTH_ABOVE_NOISE);
    expect(keepAboveNoise(['scalability-bug:n', 'unreliable'], 3)).toEqual(['unreliable']);
    const growing = [10, 20, 40, 80, 160];
    expect(growthAboveNoise(growing, growing, 0.01 ** 2)).toBeGreaterThan(1000);
    expect(keepAboveNoise(['scalability-bug:n'], 5000)).toEqual(['scalability-bug:n']);
  });
});
