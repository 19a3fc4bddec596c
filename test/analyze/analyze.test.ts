// `taintlens analyze` end to end on the bundled mini-app with a small config: one analysis run
// serves every assertion (report.json, the ranked models against the mini-app's known complexity,
// resuming in the same folder, the blame section, and report.html opened in headless Chromium).
// It runs the built CLI (bin/taintlens.js on dist/, as npx does): its worker threads start three
// times faster than in source mode, where each loads the TypeScript loader.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { renderHtmlReport } from '../../src/report/html/page.js';
import { runBlameStep } from '../../src/analyze/blame-step.js';
import { formatCount, formatRatio, formatShare, formatValue } from '../../src/report/html/format.js';
import type { AnalysisReport } from '../../src/analyze/report.js';
import type { BlameReport } from '../../src/blame/types.js';

const root = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'taintlens-analyze-'));
const out = join(dir, 'report');
// Relative to the repository root, where the CLI runs: the report shows them as a user typed them.
const config = join('examples', 'miniapp.quick.analysis.json');
const kernel = join('build', 'kernels', 'miniapp.wasm');
let report: AnalysisReport;
let stdout: string;

function taintlens(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'taintlens.js'), ...args],
      { cwd: root, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  const run = await taintlens(['analyze', kernel, '--config', config, '--out', out]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  stdout = run.stdout;
  report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as AnalysisReport;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const short = (callpath: string) =>
  callpath
    .split('->')
    .map((f) => f.slice(f.lastIndexOf('/') + 1))
    .join('->');

test('report.json: the taint step finds what drives the mini-app; balance is prunable', () => {
  expect(report.schema).toBe('taintlens/report@1');
  expect(report.base).toEqual({ size: 6, iters: 2, regions: 3, balance: 2, cost: 2 });
  expect(report.taint.prunable).toEqual(['balance']);
  const coverage = Object.fromEntries(report.taint.coverage.map((row) => [row.name, row]));
  expect(coverage.size!.share).toBeGreaterThan(0.95);
  expect(coverage.balance!.share).toBe(0);
  expect(
    report.taint.coverage
      .filter((row) => row.chosen)
      .map((row) => row.name)
      .sort(),
  ).toEqual(['cost', 'size']);
  const dependency = Object.fromEntries(report.taint.relevantFunctions.map((f) => [short(f.name), f.dependency]));
  expect(dependency.computeForces).toBe('size*size*size');
  expect(dependency.updateRegions).toMatch(/cost/);
  // The loop tree nests computeForces' loops under run's time-step loop, across the call.
  const forces = report.taint.loopTree.find((loop) => short(loop.function) === 'computeForces' && loop.depth === 2)!;
  const step = report.taint.loopTree.find((loop) => loop.id === forces.parent)!;
  expect(short(step.function)).toBe('run');
  expect(step.params).toEqual(['iters']);
});

test('ranked models match the mini-app: the whole program, then the EOS (size³·cost), the forces (size³)', () => {
  const { target } = report.models;
  const [whole, ...ranked] = report.models.ranked;
  expect(target).toEqual({ size: 64, cost: 8 });
  // <root> is the whole program: its exact count is the sum of every call path's, and shares are of it.
  expect(whole!.callpath).toBe('<root>');
  expect(whole!.shareAtTarget).toBe(1);
  const parts = ranked.reduce((sum, r) => sum + r.instructions.prediction, 0);
  // Exact exactly when every part is (then its form is their sum); never below the sum of its parts.
  expect(whole!.instructions.exact).toBe(ranked.every((r) => r.instructions.exact));
  if (whole!.instructions.exact) expect(Math.abs(whole!.instructions.prediction - parts)).toBeLessThan(1e-6 * parts);
  expect(whole!.instructions.prediction).toBeGreaterThanOrEqual(parts * (1 - 1e-9));
  // Shares are of the whole: they add up to it where its form is exact, nearly so where it is a fit.
  const shares = ranked.reduce((sum, r) => sum + r.shareAtTarget, 0);
  expect(shares).toBeLessThanOrEqual(1 + 1e-9);
  expect(shares).toBeGreaterThan(whole!.instructions.exact ? 1 - 1e-9 : 0.99);
  expect(ranked.slice(0, 3).map((r) => short(r.callpath))).toEqual([
    'run->updateRegions',
    'run->computeForces',
    'run->integrate',
  ]);
  expect(ranked[0]!.instructions.model).toMatch(/\* size\^3 \* cost/);
  expect(ranked[0]!.instructions.exact).toBe(true);
  expect(ranked[1]!.instructions.model).toMatch(/\* size\^3/);
  expect(ranked[1]!.instructions.model).not.toMatch(/cost/);
  expect(ranked[0]!.time).not.toBeNull();
  for (const r of report.models.ranked) expect(r.rank).toBe(report.models.ranked.indexOf(r) + 1);
  // Plain-word statuses; no flag that only restates the status or contradicts an exact count.
  for (const r of ranked.slice(0, 6)) expect(r.instructions.status).toBe('exact');
  for (const r of report.models.ranked) {
    expect(['exact', 'no closed form']).toContain(r.instructions.status);
    expect(r.instructions.actionFlags.filter((f) => /^(beyond-nest|unreliable|too-short|inexact)/.test(f))).toEqual([]);
    // Every call path has a time but what ran outside every region (an instruction count only).
    if (r.callpath === '<outside regions>') expect(r.time).toBeNull();
    else expect(['fit', 'noisy', 'too short']).toContain(r.time!.status);
  }
  expect(report.experiment.mode).toBe('selective');
  expect(report.experiment.design.kind).toBe('grid');
  expect(report.experiment.points.measured).toBe(25);
  // Per plotted call path: both metrics along both parameters, every repetition.
  const plots = report.models.plots[ranked[0]!.callpath]!;
  expect(plots.map((p) => `${p.metric}:${p.param}`)).toEqual([
    'instructions:size',
    'instructions:cost',
    'time:size',
    'time:cost',
  ]);
  const timeAlongSize = plots.find((p) => p.metric === 'time' && p.param === 'size')!;
  expect(timeAlongSize.measurements).toHaveLength(5 * 2);
  expect(timeAlongSize.target.x).toBe(64);
  expect(report.overhead!.modes.map((m) => m.mode)).toEqual(['none', 'full', 'default', 'selective']);
  expect(report.overhead!.points).toBe(9);
  // Blame at the base point: the domain struct `d` (its fields the arrays the kernels write) owns the work.
  expect(report.blame.missing).toBeNull();
  const [point] = report.blame.report!.blamePoints;
  expect(short(point!.function)).toBe('run');
  expect(point!.variables[0]).toMatchObject({ name: 'd', kind: 'heap' });
  expect(point!.variables[0]!.percent).toBeGreaterThan(50);
  expect(stdout).toMatch(/ranked call paths at size=64, cost=8/);
  expect(stdout).toMatch(/^ +1 +<root> /m);
  expect(stdout).toMatch(/^ +2 +…?->updateRegions|^ +2 +run->updateRegions/m);
  expect(stdout).toMatch(/^status:\n {2}exact: /m);
  expect(stdout).not.toMatch(/beyond-nest|unreliable|too-narrow/);
  // Not a terminal: every line fits 100 columns.
  expect(Math.max(...stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(100);
  expect(stdout).toContain(`report: ${join(out, 'report.html')}`);
});

/** The system browser; playwright-core never downloads one. */
function findChromium(): string | null {
  const candidates = [
    process.env.TAINTLENS_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((path): path is string => path !== undefined && existsSync(path)) ?? null;
}

const chromium = findChromium();
const NO_BROWSER =
  'skipped: no Chromium found (/usr/bin/chromium; apt-get install -y chromium, or set TAINTLENS_CHROMIUM)';
if (!chromium && process.env.CI) throw new Error(`CI must run the browser test: ${NO_BROWSER}`);

test.skipIf(!chromium)(
  `report.html in headless Chromium: every section and plot rendered, numbers as in report.json${chromium ? '' : ` (${NO_BROWSER})`}`,
  async () => {
    const { chromium: playwright } = await import('playwright-core');
    const browser = await playwright.launch({
      executablePath: chromium!,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
      const requests: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) requests.push(request.url());
      });
      await page.goto(`file://${join(out, 'report.html')}`);
      expect(requests).toEqual([]);
      const sections = await page.$$eval('section', (nodes) => nodes.map((node) => node.id));
      expect(sections).toEqual(['ranking', 'models', 'loops', 'coverage', 'blame', 'overhead']);
      // Plots: one per plotted call path and metric, and the overhead bars; every one drawn at a size.
      const plots = await page.$$eval('figure.plot svg', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          return {
            width: box.width,
            height: box.height,
            marks: svg.querySelectorAll('path, line').length,
            section: svg.closest('section')!.id,
          };
        }),
      );
      const plotted = Object.keys(report.models.plots).length;
      expect(plots.filter((p) => p.section === 'models')).toHaveLength(plotted * 2);
      expect(plots.filter((p) => p.section === 'overhead')).toHaveLength(1);
      for (const plot of plots) {
        expect(plot.width).toBeGreaterThan(100);
        expect(plot.height).toBeGreaterThan(100);
        expect(plot.marks).toBeGreaterThan(3);
      }
      // Every model plot has a dot per repetition measured on its lines.
      const symbols = await page.$$eval('section#models figure.plot', (figures) =>
        figures.map((f) => f.querySelectorAll('g.mark-symbol path').length),
      );
      const expected = Object.values(report.models.plots).flatMap((plots) =>
        ['instructions', 'time'].map((metric) =>
          plots
            .filter((p) => p.metric === metric)
            .reduce((n, p) => n + p.measurements.filter((m) => m.y > 0).length + 1, 0),
        ),
      );
      expect(symbols).toEqual(expected);
      // Tables against report.json.
      const cells = (id: string) =>
        page.$$eval(`#${id} tbody tr`, (rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent!.trim())),
        );
      const ranking = await cells('ranking-table');
      expect(ranking).toHaveLength(report.models.ranked.length);
      report.models.ranked.forEach((r, i) => {
        const row = ranking[i]!;
        expect(row[0]).toBe(String(r.rank));
        expect(row[2]).toBe(r.instructions.model);
        expect(row[3]).toBe(formatValue(r.instructions.prediction));
        expect(row[4]).toBe(formatShare(r.shareAtTarget));
        expect(row[5]).toBe([r.instructions.status, ...r.instructions.actionFlags].join(' '));
        expect(row[7]).toBe(r.time ? formatValue(r.time.prediction) : '-');
      });
      const titles = await page.$$eval('#ranking-table tbody tr td:nth-child(2) span', (spans) =>
        spans.map((s) => s.getAttribute('title')),
      );
      expect(titles).toEqual(report.models.ranked.map((r) => r.callpath));
      const coverage = await cells('coverage-table');
      expect(coverage.map((row) => [row[0], row[1]])).toEqual(
        report.taint.coverage.map((row) => [row.name, formatShare(row.share)]),
      );
      const loops = await cells('loop-tree');
      expect(loops.map((row) => [row[0], row[4], row[5]])).toEqual(
        report.taint.loopTree.map((l) => [l.loop, formatCount(l.iterations), formatCount(l.instructions)]),
      );
      const overhead = await cells('overhead-table');
      expect(overhead.map((row) => [row[0], row[3]])).toEqual(
        report.overhead!.modes.map((m) => [m.mode, formatRatio(m.ratio)]),
      );
      const blameRows = await cells('blame-table-0');
      expect(blameRows[0]![0]).toBe(report.blame.report!.blamePoints[0]!.variables[0]!.name);
      const shot = process.env.TAINTLENS_UPDATE_SCREENSHOT
        ? join(root, 'docs', 'report.png')
        : join(root, 'build', 'report-screenshot.png');
      mkdirSync(join(shot, '..'), { recursive: true });
      await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: 1500 } });
      expect(statSync(shot).size).toBeGreaterThan(20_000);
    } finally {
      await browser.close();
    }
  },
);

test('a second run in the same folder resumes: nothing measured again, the same models', async () => {
  const again = await taintlens(['analyze', kernel, '--config', config, '--out', out, '--json']);
  expect(again.code).toBe(0);
  const second = JSON.parse(again.stdout) as AnalysisReport;
  expect(second.experiment.points).toEqual({ measured: 0, resumed: 25 });
  expect(second.models.ranked.map((r) => r.instructions.model)).toEqual(
    report.models.ranked.map((r) => r.instructions.model),
  );
  expect(second.overhead).toEqual(report.overhead);
});

test('the blame section: bars and a table from a BlameReport, or a plain line saying why there is none', async () => {
  const blame: BlameReport = {
    schema: 'taintlens/blame@1',
    module: kernel,
    period: 1000,
    totalSamples: 200,
    blamePoints: [
      {
        function: 'run',
        samples: 200,
        variables: [
          {
            name: 'd.p',
            kind: 'heap',
            bytes: 1728,
            allocationSite: 'run->Domain#constructor->__new',
            samples: 120,
            percent: 60,
          },
          {
            name: 'd.e',
            kind: 'heap',
            bytes: 1728,
            allocationSite: 'run->Domain#constructor->__new',
            samples: 70,
            percent: 35,
          },
          { name: 'other', kind: 'other', bytes: null, allocationSite: null, samples: 10, percent: 5 },
        ],
      },
    ],
  };
  const html = await renderHtmlReport({ ...report, blame: { point: report.base, report: blame, missing: null } });
  const section = html.slice(html.indexOf('<section id="blame">'), html.indexOf('<section id="overhead">'));
  expect(section).toContain('<svg');
  expect(
    section.match(/<path[^>]*aria-roledescription="bar"/g) ?? section.match(/role-mark mark-rect|mark-rect role-mark/g),
  ).not.toBeNull();
  for (const name of ['d.p', 'd.e', 'other']) expect(section).toContain(`>${name}<`);
  expect(section).toContain('60.0%');
  expect(section).toContain('run-&gt;Domain#constructor-&gt;__new');
  const none = await renderHtmlReport({
    ...report,
    blame: { point: report.base, report: null, missing: 'blame is turned off in the config ("blame": false)' },
  });
  expect(none.slice(none.indexOf('<section id="blame">'), none.indexOf('<section id="overhead">'))).toMatch(
    /No blame table: blame is turned off/,
  );
  // The step passes the run options through to the blame analysis.
  const calls: unknown[] = [];
  const outcome = await runBlameStep(
    kernel,
    { invoke: 'run', args: ['6'], argv: [], timeoutMs: 1000, period: 1000, blamePoints: [] },
    async (file, options) => {
      calls.push([file, options]);
      return blame;
    },
  );
  expect(outcome).toEqual({ report: blame, missing: null });
  expect(calls).toEqual([
    [kernel, { invoke: 'run', args: ['6'], argv: [], timeoutMs: 1000, period: 1000, blamePoints: [] }],
  ]);
  // Too few samples for shares to mean anything (a small base point): once more at a shorter period.
  const periods: number[] = [];
  const again = await runBlameStep(
    kernel,
    { invoke: 'run', args: ['6'], argv: [], timeoutMs: 1000, period: 10_000, blamePoints: [] },
    async (_, options) => {
      periods.push(options.period);
      return { ...blame, period: options.period, totalSamples: options.period === 10_000 ? 20 : 400 };
    },
  );
  expect(periods).toEqual([10_000, 500]);
  expect(again.report!.totalSamples).toBe(400);
});

test('without named parameters the taint run proposes them: the one reaching the most work, varied over its base times the scale', async () => {
  const proposing = join(dir, 'propose.json');
  writeFileSync(
    proposing,
    JSON.stringify({
      invoke: 'run',
      args: ['{n}', '{m}'],
      base: { n: 100, m: 10 },
      maxParameters: 1,
      repetitions: 1,
      overhead: false,
      blame: false,
      plots: 1,
    }),
  );
  const run = await taintlens([
    'analyze',
    join('native', 'wasm', 'hot_helper.wasm'),
    '--config',
    proposing,
    '--out',
    join(dir, 'propose'),
    '--json',
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const proposed = JSON.parse(run.stdout) as AnalysisReport;
  const rows = Object.fromEntries(proposed.taint.coverage.map((row) => [row.name, row]));
  // hot_helper's sweep over n does nearly all the work; m only bounds a small relaxation.
  expect(rows.n!.chosen).toBe(true);
  expect(rows.n!.why).toBe('reaches the most work (#1)');
  expect(rows.n!.share).toBeGreaterThan(rows.m!.share);
  expect(rows.m!.chosen).toBe(false);
  expect(rows.m!.why).toBe('only #2: at most 1 proposed');
  expect(proposed.experiment.parameters).toEqual([{ name: 'n', values: [100, 200, 300, 400, 500], base: 100 }]);
  expect(proposed.models.target).toEqual({ n: 2000 });
  expect(proposed.models.ranked[0]!.callpath).toBe('<root>');
  expect(short(proposed.models.ranked[1]!.callpath)).toBe('run->sweep');
  expect(proposed.models.ranked[1]!.instructions.model).toMatch(/ \* n$/);
  expect(proposed.overhead).toBeNull();
  expect(proposed.blame.missing).toMatch(/turned off/);
});
