// What the measurements cannot support is said, not hidden: parameters never varied or with too
// few values, extrapolation along them, whole runs too short to time, a taint report of another
// module, and scalability bugs judged against the program's main work.
import { describe, expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_GROWTH, modelExperiment, type ModelingOptions } from '../../src/model/modeler.js';
import { parseTaintReport } from '../../src/io/taint.js';
import { modelsDocument, renderModels } from '../../src/io/models.js';
import { UserError } from '../../src/util/errors.js';
import { cli } from '../helpers/cli.js';
import { grid2, log2 } from './helpers.js';
import type { Series } from '../../src/model/types.js';
import { tempDir } from '../helpers/temp.js';

const run = (series: Series[], options: Partial<ModelingOptions> = {}) =>
  modelExperiment(
    { source: 'm', params: ['p', 'n'], series },
    { aggregate: 'median', growth: DEFAULT_GROWTH, ...options },
  );

const taint = (names: string[], parameters = ['p', 'n']) =>
  parseTaintReport(
    {
      schema: 'taintlens/taint@1',
      parameters,
      loops: [],
      warnings: [],
      functions: names.map((name) => ({ name, params: ['n'], dependency: 'n', pruned: null })),
    },
    'other.json',
  );

describe('points per parameter', () => {
  test('one point per parameter: constant models flagged not-varied, SMAPE shown as -', () => {
    const series = [grid2('main->solve', (p, n) => 1 + p * n, { p: [8], n: [64] })];
    const report = run(series);
    expect(report.models[0]!.flags).toEqual(['not-varied:p', 'not-varied:n']);
    expect(report.warnings.map((w) => w.kind)).toEqual(['not-varied', 'not-varied']);
    const text = renderModels(report, 'm');
    expect(text).toMatch(/main->solve\s+\S+\s+-\s+\S+\s+fit\s+not-varied:p not-varied:n/);
    expect(text).toMatch(/warning: p was measured at one value only \(8\)/);
    expect(text).toMatch(/not-varied: this parameter was measured at one value only/);
  });

  test('four values flag few-points (Extra-P needs five); five do not', () => {
    const four = run([grid2('main->solve', (p, n) => 1 + p * n, { p: [4, 8, 16, 32] })]);
    expect(four.models[0]!.flags).toEqual(['few-points:p']);
    expect(four.warnings).toEqual([expect.objectContaining({ kind: 'few-points', param: 'p' })]);
    const five = run([grid2('main->solve', (p, n) => 1 + p * n)]);
    expect(five.models[0]!.flags).toEqual([]);
    expect(five.warnings).toEqual([]);
  });

  test('a target along a parameter never varied is refused, with or without the taint prior', () => {
    const series = [grid2('main->solve', (p, n) => 1 + p * n, { p: [8] })];
    for (const options of [{}, { taint: taint(['solve']) }]) {
      const attempt = () => run(series, { ...options, target: { p: 1024, n: 256 } });
      expect(attempt).toThrow(UserError);
      expect(attempt).toThrow(/^--target p=1024: p was measured at one value only \(8\)/);
    }
    // At the measured value it is no extrapolation along p.
    expect(run(series, { target: { p: 8, n: 4096 } }).models[0]!.prediction).toBeGreaterThan(0);
  });

  test('extrapolating along a parameter with few values is a warning', () => {
    const report = run([grid2('main->solve', (p, n) => 1 + p * n, { p: [4, 8, 16] })], { target: { p: 1024, n: 256 } });
    expect(report.warnings.map((w) => w.kind)).toEqual(['few-points', 'extrapolation']);
  });
});

describe('a taint report of another module', () => {
  const series = [grid2('main->solve', (_p, n) => 1 + n), grid2('main->init', (p) => 2 + p)];

  test('matches nothing: one warning and a field, no taint-missing on every row', () => {
    const report = run(series, { taint: taint(['foo', 'bar']) });
    expect(report.taintMatch).toEqual({ matched: 0, callpaths: 2, share: 0 });
    for (const model of report.models) expect(model.flags).not.toContain('taint-missing');
    expect(report.warnings).toEqual([expect.objectContaining({ kind: 'taint-mismatch' })]);
    const text = renderModels(report, 'm');
    expect(
      text.match(/^warning: the taint report other\.json matches none of the 2 call paths' functions/gm),
    ).toHaveLength(1);
    expect(modelsDocument(report, 'm')).toMatchObject({
      taintMatch: { matched: 0, callpaths: 2, share: 0 },
      warnings: [{ kind: 'taint-mismatch' }],
    });
  });

  test('shares no parameter: the same warning, and the report is not applied', () => {
    const report = run(series, { taint: taint(['solve', 'init'], ['x']) });
    expect(report.warnings[0]!.message).toMatch(/shares no parameter with the measurements/);
    expect(report.taintMatch).toMatchObject({ matched: 0, callpaths: 2 });
    // Applied, the report would have made both functions constant (contention); not applied, they keep their growth.
    for (const model of report.models) {
      expect(model.flags.filter((flag) => /^(contention|taint-missing)/.test(flag))).toEqual([]);
      expect(model.dependsOn).toHaveLength(1);
      expect(model.prior).toBeUndefined();
    }
  });

  test('the whole run alone (<root>) is never a mismatch', () => {
    const report = run([grid2('<root>', (p, n) => 20 * p * n)], { taint: taint(['solve']) });
    expect(report.taintMatch).toEqual({ matched: 0, callpaths: 0, share: 0 });
    expect(report.warnings).toEqual([]);
    expect(report.models[0]!.flags).toEqual([]);
  });

  test('a report that matches the main work keeps the per-row flag and no warning', () => {
    const report = run(series, { taint: taint(['solve']) });
    expect(report.taintMatch).toMatchObject({ matched: 1, callpaths: 2 });
    expect(report.taintMatch!.share).toBeGreaterThan(0.5);
    expect(report.models.find((m) => m.callpath === 'main->init')!.flags).toContain('taint-missing');
    expect(report.warnings).toEqual([]);
  });

  test('a report that matches only minor functions (a shared runtime) is a mismatch too', () => {
    const report = run(series, { taint: taint(['init']) }); // init carries a minor share of the work
    expect(report.taintMatch).toMatchObject({ matched: 1, callpaths: 2 });
    expect(report.warnings[0]!.message).toMatch(
      /matches only 1 of the 2 call paths' functions, which carry \d+\.\d% of the work/,
    );
    expect(report.models.find((m) => m.callpath === 'main->solve')!.flags).toContain('taint-missing');
  });
});

describe('whole runs too short to time', () => {
  const root = (scale: number) => ({ ...grid2('<root>', (p, n) => scale * p * n), params: ['p', 'n'] });

  test('time of <root> in ms under 10 ms is flagged and warned once; longer runs are not', () => {
    const short = run([root(1e-4)], { timeInMs: true });
    expect(short.models[0]!.flags).toContain('short-runs');
    expect(short.warnings).toEqual([expect.objectContaining({ kind: 'short-runs', metric: 'time' })]);
    expect(short.units).toEqual({ time: 'ms' });
    const long = run([root(1e-2)], { timeInMs: true });
    expect(long.models[0]!.flags).not.toContain('short-runs');
    // Units unknown (Extra-P files): no judgement.
    expect(run([root(1e-4)]).models[0]!.flags).not.toContain('short-runs');
  });
});

describe('scalability bugs by default: faster than the main work', () => {
  // The main work grows like p·n; a small call path grows like n², another like n·log n but stays tiny.
  const series = [
    grid2('main->solve', (p, n) => 10 + 5 * p * n),
    grid2('main->halo', (_p, n) => 1 + 0.05 * n * n),
    grid2('main->sort', (_p, n) => 1 + 1e-3 * n * log2(n)),
    grid2('main->setup', (p) => 3 + 2 * p),
  ];

  test('flags what outgrows the main work and matters at the target', () => {
    const report = run(series, { target: { p: 64, n: 65536 } });
    const flags = Object.fromEntries(report.models.map((m) => [m.callpath, m.flags]));
    expect(flags['main->halo']).toEqual(['scalability-bug:n']);
    expect(flags['main->sort']).toEqual([]); // faster than n, but under 1% of the total at the target
    expect(flags['main->solve']).toEqual([]);
    expect(flags['main->setup']).toEqual([]);
    expect(report.mainWorkGrowth.time).toEqual({ p: { exponent: 1, log: 0 }, n: { exponent: 1, log: 0 } });
  });

  test('a number still sets an absolute threshold, per parameter too', () => {
    const report = run(series, { growth: { default: 1, perParam: {} } });
    const flags = Object.fromEntries(report.models.map((m) => [m.callpath, m.flags]));
    expect(flags['main->halo']).toEqual(['scalability-bug:n']);
    expect(flags['main->sort']).toEqual(['scalability-bug:n']);
    expect(report.mainWorkGrowth).toEqual({});
    const perParam = run(series, { growth: { default: 'auto', perParam: { n: 2 } }, target: { p: 64, n: 65536 } });
    expect(perParam.models.find((m) => m.callpath === 'main->halo')!.flags).toEqual([]);
  });
});

describe('from the command line', () => {
  const dir = tempDir('taintlens-honest-');
  const write = (name: string, series: Series[]) => {
    const path = join(dir, name);
    const lines = series.flatMap((s) =>
      s.points.flatMap((pt) =>
        pt.values.map((value) =>
          JSON.stringify({
            params: { p: pt.coords[0], n: pt.coords[1] },
            callpath: s.callpath,
            metric: s.metric,
            value,
          }),
        ),
      ),
    );
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  const long =
    'assembly/kernels/some/very/long/module/path/run->assembly/kernels/some/very/long/module/path/computeEverything';

  test('--target along a parameter never varied: exit 2 and one line', async () => {
    const file = write('one.jsonl', [grid2('main->solve', (p, n) => 1 + p * n, { p: [8] })]);
    const { code, stderr } = await cli(['model', file, '--target', 'p=64,n=256']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  test('the table fits 100 columns; --wide and --json keep the call path whole; time is in ms', async () => {
    const file = write('long.jsonl', [
      grid2(long, (p, n) => 1 + p * n * log2(n) * 100),
      grid2('<root>', (p, n) => 0.001 * p * n),
    ]);
    const { stdout } = await cli(['model', file]);
    const tableLines = stdout.split('\n').filter((line) => /^\s+\d+\s/.test(line) || /^rank/.test(line));
    for (const line of tableLines) expect(line.length).toBeLessThanOrEqual(100);
    expect(stdout).toMatch(/…\w*Everything\s/);
    expect(stdout).toMatch(/^time \(ms\):/m);
    expect(stdout).toMatch(/warning: time of <root> \(the whole run\)/);
    const wide = await cli(['model', file, '--wide']);
    expect(wide.stdout).toContain(long);
    const json = JSON.parse((await cli(['model', file, '--json'])).stdout);
    expect(json.models.map((m: { callpath: string }) => m.callpath)).toContain(long);
    expect(json.units).toEqual({ time: 'ms' });
    expect(json.growthThreshold).toEqual({ default: 'auto', perParam: {} });
  });
});
