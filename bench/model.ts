// `npm run bench:model`: how well the PMNF modeler recovers synthetic functions, with and without
// the taint prior, next to a re-implementation of Extra-P's modeler on the same functions; and
// how long 1,000 two-parameter call paths take.
//
//   node dist/bench/model.js [--seed 1] [--per-family 200] [--paths 1000] [--design default] [--json]
//   node dist/bench/model.js --calibrate [--seed 1] [--per-family 200]   (the Extra-P-like baseline on every named design)
//   node dist/bench/model.js --exact-seeds 1,2,3,4,5 [--per-family 200]  (only the exact-data rows, one per seed)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderTable } from '../src/report/table.js';
import { schemaId } from '../src/util/schema.js';
import { readMeasurements } from '../src/io/measurements.js';
import { parseTaintReport } from '../src/io/taint.js';
import { modelsDocument } from '../src/io/models.js';
import {
  EXTRA_FAMILIES,
  FAMILIES,
  bestFitCeiling,
  extrapLikeMethod,
  ourMethod,
  recoveryRates,
  syntheticCases,
  type Method,
  type Rates,
} from './model/benchmark.js';
import { DEFAULT_GROWTH, modelExperiment } from '../src/model/modeler.js';
import {
  FAMILY_TEXT,
  NAMED_DESIGNS,
  rng,
  syntheticFunction,
  syntheticSeries,
  syntheticTaintReport,
  type Family,
} from './model/synthetic.js';
import type { Experiment, Series } from '../src/model/types.js';
import {
  NEST_DESIGN_2,
  NEST_DESIGN_3,
  nestCases,
  nestTaintReport,
  nestTimeSeries,
  scoreNests,
  scoreNestTimes,
  type NestDesign,
  type NestOutcome,
  type NestTimeOutcome,
} from './model/nest-bench.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
const seed = arg('--seed', 1);
const perFamily = arg('--per-family', 200);
const paths = arg('--paths', 1000);
const json = process.argv.includes('--json');
const NOISES = [0.01, 0.05, 0.1];
const designAt = process.argv.indexOf('--design');
const designName = designAt >= 0 ? process.argv[designAt + 1]! : 'default';
const namedDesign = NAMED_DESIGNS[designName];
if (!namedDesign) {
  console.error(`unknown design "${designName}"; one of: ${Object.keys(NAMED_DESIGNS).join(', ')}`);
  process.exit(2);
}
const DESIGN = namedDesign;

/** Issue figures for Extra-P 4.2.5 (measured by the lead on this machine type). */
const EXTRAP_REFERENCE: Record<number, { exact: number; falseDependency: number }> = {
  0.01: { exact: 0.8, falseDependency: 0.2 },
  0.05: { exact: 0.65, falseDependency: 0.2 },
  0.1: { exact: 0.56, falseDependency: 0.2 },
};

interface Row {
  noise: number;
  method: string;
  rates: Rates;
}

const ceiling = (r: Row) => r.method.startsWith('best-fit');
const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);

function methodsFor(cases: Parameters<Method>[0]): Array<[string, Method]> {
  const taintJson = syntheticTaintReport(
    cases.map((c) => c.fn),
    DESIGN,
  ) as Record<string, unknown>;
  const withLoops = parseTaintReport(taintJson, 'synthetic-taint.json');
  const dependencyOnly = parseTaintReport({ ...taintJson, loops: [] }, 'synthetic-taint.json');
  return [
    ['Extra-P-like (mean)', extrapLikeMethod],
    ['ours', ourMethod()],
    ['ours + prior (dependency)', ourMethod(dependencyOnly)],
    ['ours + prior (loop nests)', ourMethod(withLoops)],
    ['ours, least squares', ourMethod(undefined, 'median', 'least-squares')],
    ['ours, least squares + prior (nests)', ourMethod(withLoops, 'median', 'least-squares')],
  ];
}

// Exact data: instruction counts of random loop nests (several terms per parameter subset,
// (n−k) and triangular bounds, log-trip loops), without and with the taint dependency as prior.
interface ExactRow {
  seed: number;
  data: string;
  method: string;
  outcome: NestOutcome;
  msPerPath: number;
}
const NEST_DESIGNS: Array<[string, NestDesign]> = [
  [`2 params, t×n ${NEST_DESIGN_2.values.map((v) => v.length).join('×')}`, NEST_DESIGN_2],
  [`3 params, a×b×c ${NEST_DESIGN_3.values.map((v) => v.length).join('×')}`, NEST_DESIGN_3],
];
function exactDataRows(runSeed: number): ExactRow[] {
  const result: ExactRow[] = [];
  for (const [data, design] of NEST_DESIGNS) {
    const cases = nestCases(runSeed + 11, perFamily, design);
    const nestTaint = parseTaintReport(nestTaintReport(cases, design), 'nest-taint.json');
    for (const [method, prior] of [
      ['ours', undefined],
      ['ours + prior (dependency)', nestTaint],
    ] as const) {
      const start = performance.now();
      const report = modelExperiment(
        { source: 'nests', params: [...design.params], series: cases.map((c) => c.series) },
        { aggregate: 'median', growth: DEFAULT_GROWTH, ...(prior ? { taint: prior } : {}) },
      );
      const msPerPath = (performance.now() - start) / cases.length;
      result.push({
        seed: runSeed,
        data,
        method,
        outcome: scoreNests(cases, new Map(report.models.map((m) => [m.callpath, m]))),
        msPerPath,
      });
    }
  }
  return result;
}
function exactTable(list: readonly ExactRow[], withSeed: boolean): string {
  return renderTable(list, [
    ...(withSeed ? [{ header: 'seed', value: (r: ExactRow) => String(r.seed), align: 'right' as const }] : []),
    { header: 'data', value: (r) => r.data },
    { header: 'method', value: (r) => r.method },
    { header: 'exact', value: (r) => pct(r.outcome.exact, r.outcome.count), align: 'right' },
    { header: 'leading', value: (r) => pct(r.outcome.leading, r.outcome.count), align: 'right' },
    { header: 'false dep.', value: (r) => pct(r.outcome.falseDependency, r.outcome.count), align: 'right' },
    { header: 'inexact', value: (r) => pct(r.outcome.inexact, r.outcome.count), align: 'right' },
    { header: 'unidentifiable', value: (r) => pct(r.outcome.unidentifiable, r.outcome.count), align: 'right' },
    { header: 'ms/path', value: (r) => r.msPerPath.toFixed(1), align: 'right' },
  ]);
}

// The same nests' time (counts × a cost per instruction, ±5% uniform jitter, 5 repetitions): free
// PMNF search, with the taint prior, and shaped by the exact counts measured beside it.
interface TimeRow {
  data: string;
  method: string;
  outcome: NestTimeOutcome;
  msPerPath: number;
}
const TIME_NESTS = Math.max(1, Math.round(perFamily / 2));
function nestTimeRows(runSeed: number): TimeRow[] {
  const result: TimeRow[] = [];
  for (const [data, design] of NEST_DESIGNS) {
    const cases = nestCases(runSeed + 11, TIME_NESTS, design);
    const nestTaint = parseTaintReport(nestTaintReport(cases, design), 'nest-taint.json');
    const times = nestTimeSeries(cases, 0.05, runSeed + 13);
    const counts = cases.map((c) => c.series);
    const methods: Array<[string, Series[], typeof nestTaint | undefined]> = [
      ['time alone', times, undefined],
      ['time + prior (dependency)', times, nestTaint],
      ['time shaped by counts', [...times, ...counts], undefined],
      ['time shaped by counts + prior', [...times, ...counts], nestTaint],
    ];
    for (const [method, series, prior] of methods) {
      const start = performance.now();
      const report = modelExperiment(
        { source: 'nests', params: [...design.params], series },
        { aggregate: 'median', growth: DEFAULT_GROWTH, ...(prior ? { taint: prior } : {}) },
      );
      const msPerPath = (performance.now() - start) / cases.length;
      const models = new Map(report.models.filter((m) => m.metric === 'time').map((m) => [m.callpath, m]));
      result.push({ data, method, outcome: scoreNestTimes(cases, models), msPerPath });
    }
  }
  return result;
}

const exactSeedsAt = process.argv.indexOf('--exact-seeds');
if (exactSeedsAt >= 0) {
  const seeds = (process.argv[exactSeedsAt + 1] ?? '').split(',').map(Number);
  if (seeds.length === 0 || seeds.some((value) => !Number.isInteger(value))) {
    console.error('--exact-seeds: a comma-separated list of integers, e.g. 1,2,3');
    process.exit(2);
  }
  const all = seeds.flatMap(exactDataRows);
  if (json)
    process.stdout.write(
      JSON.stringify({ schema: schemaId('bench'), benchmark: 'model-exact', perFamily, exactData: all }, null, 2) +
        '\n',
    );
  else {
    console.log(
      `Exact data, ${perFamily} random loop nests per row and seed (nests of seed s are drawn with seed s + 11):`,
    );
    console.log(exactTable(all, true));
  }
  process.exit(0);
}

if (process.argv.includes('--calibrate')) {
  // The Extra-P-like baseline on every named design, next to the issue's Extra-P figures: which
  // design reproduces them? (docs/model.md, "Calibration".)
  const calibration: Array<{ design: string; noise: number; rates: Rates }> = [];
  for (const [name, design] of Object.entries(NAMED_DESIGNS)) {
    for (const noise of NOISES) {
      const cases = syntheticCases(seed + Math.round(noise * 1000), perFamily, noise, design);
      calibration.push({ design: name, noise, rates: recoveryRates(cases, extrapLikeMethod, 'mean') });
    }
  }
  if (json) {
    process.stdout.write(
      JSON.stringify(
        {
          schema: schemaId('bench'),
          benchmark: 'model-calibration',
          seed,
          perFamily,
          designs: NAMED_DESIGNS,
          calibration,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    console.log(
      `Extra-P-like baseline per design (${perFamily} functions per family, seed ${seed}); Extra-P 4.2.5 (issue): 80 / 65 / 56% exact, ~20% false dep.\n`,
    );
    const designs = Object.keys(NAMED_DESIGNS);
    const cell = (name: string, noise: number, pick: (r: Rates) => number) => {
      const r = calibration.find((c) => c.design === name && c.noise === noise)!.rates;
      return pct(pick(r), r.count);
    };
    console.log(
      renderTable(designs, [
        { header: 'design', value: (d) => d },
        { header: 'p values', value: (d) => NAMED_DESIGNS[d]!.values[0].join(',') },
        { header: 'n values', value: (d) => NAMED_DESIGNS[d]!.values[1].join(',') },
        ...NOISES.map((noise) => ({
          header: `exact ±${Math.round(noise * 100)}%`,
          value: (d: string) => cell(d, noise, (r) => r.exact),
          align: 'right' as const,
        })),
        ...NOISES.map((noise) => ({
          header: `false ±${Math.round(noise * 100)}%`,
          value: (d: string) => cell(d, noise, (r) => r.falseDependency),
          align: 'right' as const,
        })),
        ...(['constant', 'multiplicative'] as Family[]).map((family) => ({
          header: `${family} ±1%`,
          value: (d: string) => {
            const t = calibration.find((c) => c.design === d && c.noise === 0.01)!.rates.perFamily[family];
            return t ? pct(t.exact, t.count) : '-';
          },
          align: 'right' as const,
        })),
      ]),
    );
  }
  process.exit(0);
}

const rows: Row[] = [];
const extraRows: Row[] = [];
const normalRows: Row[] = [];
for (const noise of NOISES) {
  const cases = syntheticCases(seed + Math.round(noise * 1000), perFamily, noise, DESIGN);
  for (const [method, run] of methodsFor(cases))
    rows.push({ noise, method, rates: recoveryRates(cases, run, method.startsWith('Extra-P') ? 'mean' : 'median') });
  // What no modeler choosing exponents by fit can beat: the true structure given, the best-fitting shapes.
  rows.push({ noise, method: 'best-fit ceiling (median)', rates: bestFitCeiling(cases, 'median') });
  rows.push({ noise, method: 'best-fit ceiling (mean)', rates: bestFitCeiling(cases, 'mean') });
  // The same functions' shapes under unbounded (normal) noise of the same variance: the noise is
  // not bounded, so the modeler stays with least squares.
  const gaussian = syntheticCases(seed + 3 + Math.round(noise * 1000), perFamily, noise, DESIGN, FAMILIES, 'normal');
  for (const [method, run] of methodsFor(gaussian).filter(
    ([name]) => name === 'ours' || name === 'ours + prior (loop nests)',
  )) {
    normalRows.push({ noise, method, rates: recoveryRates(gaussian, run, 'median') });
  }
  normalRows.push({ noise, method: 'best-fit ceiling (median)', rates: bestFitCeiling(gaussian, 'median') });
  normalRows.push({ noise, method: 'best-fit ceiling (mean)', rates: bestFitCeiling(gaussian, 'mean') });
  const extra = syntheticCases(seed + 7 + Math.round(noise * 1000), perFamily, noise, DESIGN, EXTRA_FAMILIES);
  for (const [method, run] of methodsFor(extra).filter(([name]) => name.startsWith('ours'))) {
    extraRows.push({ noise, method, rates: recoveryRates(extra, run, method.includes('mean') ? 'mean' : 'median') });
  }
}

const exactRows = exactDataRows(seed);
const timeRows = nestTimeRows(seed);

// Timing: 1,000 two-parameter call paths (mixed families, ±5%), in memory and from a JSONL file.
function timingExperiment(count: number): { experiment: Experiment; taint: unknown } {
  const random = rng(seed + 99);
  const functions = [];
  const series: Series[] = [];
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length] as Family;
    const fn = syntheticFunction(random, family, `k${i}`, DESIGN);
    functions.push(fn);
    series.push(syntheticSeries(random, fn, 0.05, DESIGN));
  }
  return {
    experiment: { source: 'synthetic', params: [...DESIGN.params], series },
    taint: syntheticTaintReport(functions, DESIGN),
  };
}
const { experiment, taint } = timingExperiment(paths);
const taintReport = parseTaintReport(taint, 'synthetic-taint.json');
const ROUNDS = 5;
const timings: Array<{ what: string; ms: number[]; cpuMs: number[] }> = [];
/** Wall and CPU time per round (CPU time is less disturbed by other processes on the machine). */
const time = (what: string, work: () => void) => {
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    work();
    ms.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
  }
  timings.push({ what, ms, cpuMs });
};
time(`model ${paths} call paths (in memory)`, () => {
  modelExperiment(experiment, { aggregate: 'median', growth: DEFAULT_GROWTH });
});
time(`model ${paths} call paths + taint prior`, () => {
  modelExperiment(experiment, { aggregate: 'median', growth: DEFAULT_GROWTH, taint: taintReport });
});
time(`model ${paths} call paths, least squares forced`, () => {
  modelExperiment(experiment, { aggregate: 'median', growth: DEFAULT_GROWTH, fit: 'least-squares' });
});
const dir = mkdtempSync(join(tmpdir(), 'taintlens-bench-'));
try {
  const file = join(dir, 'measurements.jsonl');
  const lines: string[] = [];
  for (const s of experiment.series) {
    for (const point of s.points) {
      for (const value of point.values) {
        lines.push(
          JSON.stringify({
            params: { p: point.coords[0], n: point.coords[1] },
            callpath: s.callpath,
            metric: s.metric,
            value,
          }),
        );
      }
    }
  }
  writeFileSync(file, lines.join('\n') + '\n');
  time(`read ${lines.length.toLocaleString('en-US')} JSONL lines + model + JSON document`, () => {
    const read = readMeasurements(file);
    const report = modelExperiment(read, { aggregate: 'median', growth: DEFAULT_GROWTH });
    JSON.stringify(modelsDocument(report, file));
  });
  // A fresh process each round: what `taintlens model file.jsonl --json` costs from a cold start,
  // next to the start-up alone (`taintlens --help` loads every command's modules).
  const bin = fileURLToPath(new URL('../../bin/taintlens.js', import.meta.url));
  if (existsSync(bin)) {
    time('CLI, fresh process: taintlens --help (start-up only)', () => {
      execFileSync(process.execPath, [bin, '--help'], { stdio: 'ignore' });
    });
    time(`CLI, fresh process: taintlens model <${paths} call paths>.jsonl --json`, () => {
      execFileSync(process.execPath, [bin, 'model', file, '--json'], { stdio: 'ignore', maxBuffer: 1 << 28 });
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (json) {
  const compact = (r: Row) => ({ noise: r.noise, method: r.method, ...r.rates });
  process.stdout.write(
    JSON.stringify(
      {
        schema: schemaId('bench'),
        benchmark: 'model',
        seed,
        perFamily,
        designName,
        design: DESIGN,
        recovery: rows.map(compact),
        normalNoise: normalRows.map(compact),
        beyondExtrap: extraRows.map(compact),
        exactData: exactRows,
        nestTime: timeRows,
        timing: timings,
      },
      null,
      2,
    ) + '\n',
  );
} else {
  console.log(
    `Model recovery: ${perFamily} functions per family (${FAMILIES.map((f) => `${f}: ${FAMILY_TEXT[f]}`).join('; ')}), ` +
      `design "${designName}": p ∈ {${DESIGN.values[0].join(',')}} × n ∈ {${DESIGN.values[1].join(',')}}, ` +
      `${DESIGN.repetitions} repetitions, uniform ±noise; seed ${seed}.`,
  );
  console.log(
    "ours: the noise shape is read off all call paths' repetitions; bounded noise (as here) picks shapes by how tightly " +
      'they cover every repetition (minimax), other noise by least squares on the medians ("ours, least squares" forces that).',
  );
  console.log('exact: the same terms with the same exponents; structure: the same parameter sets per term.');
  console.log(
    'wrong fits better: misses where the true terms, refitted, fit the aggregated data worse than the chosen model.',
  );
  console.log(
    'best-fit ceiling: the true term structure given, the true shapes fit the aggregated values best (least squares) among all ' +
      'assignments of the 42 shapes: no modeler that chooses exponents by least squares on aggregates does better on average.\n',
  );
  console.log(
    renderTable(rows, [
      { header: 'noise', value: (r) => `±${Math.round(r.noise * 100)}%` },
      { header: 'method', value: (r) => r.method },
      { header: 'exact', value: (r) => pct(r.rates.exact, r.rates.count), align: 'right' },
      { header: 'structure', value: (r) => (ceiling(r) ? '-' : pct(r.rates.structure, r.rates.count)), align: 'right' },
      {
        header: 'false dep.',
        value: (r) => (ceiling(r) ? '-' : pct(r.rates.falseDependency, r.rates.count)),
        align: 'right',
      },
      {
        header: 'missed dep.',
        value: (r) => (ceiling(r) ? '-' : pct(r.rates.missedDependency, r.rates.count)),
        align: 'right',
      },
      {
        header: 'wrong fits better',
        value: (r) => (ceiling(r) ? '-' : pct(r.rates.dataFavorWrong, r.rates.count - r.rates.exact)),
        align: 'right',
      },
      {
        header: 'contention flags',
        value: (r) => (r.method.includes('prior') ? pct(r.rates.contentionFlags, r.rates.count) : '-'),
        align: 'right',
      },
      {
        header: 'too-narrow flags',
        value: (r) => (r.method.includes('prior') ? pct(r.rates.tooNarrowFlags, r.rates.count) : '-'),
        align: 'right',
      },
      {
        header: 'Extra-P 4.2.5 (issue)',
        value: (r) =>
          r.method.startsWith('Extra-P')
            ? `${pct(EXTRAP_REFERENCE[r.noise]!.exact, 1)} exact, ~${pct(EXTRAP_REFERENCE[r.noise]!.falseDependency, 1)} false`
            : '',
      },
    ]),
  );
  console.log('\nExact recovery per family:');
  const families: Family[] = [...FAMILIES];
  console.log(
    renderTable(rows, [
      { header: 'noise', value: (r) => `±${Math.round(r.noise * 100)}%` },
      { header: 'method', value: (r) => r.method },
      ...families.map((family) => ({
        header: family,
        value: (r: Row) => pct(r.rates.perFamily[family]?.exact ?? 0, r.rates.perFamily[family]?.count ?? 0),
        align: 'right' as const,
      })),
    ]),
  );
  console.log('\nNormal (unbounded) noise with the same variance, σ = noise/√3 (other seeds):');
  console.log(
    renderTable(normalRows, [
      { header: 'noise', value: (r) => `σ ${((100 * r.noise) / Math.sqrt(3)).toFixed(1)}%` },
      { header: 'method', value: (r) => r.method },
      { header: 'exact', value: (r) => pct(r.rates.exact, r.rates.count), align: 'right' },
      { header: 'structure', value: (r) => (ceiling(r) ? '-' : pct(r.rates.structure, r.rates.count)), align: 'right' },
      {
        header: 'false dep.',
        value: (r) => (ceiling(r) ? '-' : pct(r.rates.falseDependency, r.rates.count)),
        align: 'right',
      },
      {
        header: 'missed dep.',
        value: (r) => (ceiling(r) ? '-' : pct(r.rates.missedDependency, r.rates.count)),
        align: 'right',
      },
    ]),
  );
  console.log(
    `\nBeyond Extra-P's hypothesis space (${EXTRA_FAMILIES.map((f) => `${f}: ${FAMILY_TEXT[f]}`).join('; ')}):`,
  );
  console.log(
    renderTable(extraRows, [
      { header: 'noise', value: (r) => `±${Math.round(r.noise * 100)}%` },
      { header: 'method', value: (r) => r.method },
      { header: 'exact', value: (r) => pct(r.rates.exact, r.rates.count), align: 'right' },
      { header: 'structure', value: (r) => pct(r.rates.structure, r.rates.count), align: 'right' },
      { header: 'false dep.', value: (r) => pct(r.rates.falseDependency, r.rates.count), align: 'right' },
      { header: 'missed dep.', value: (r) => pct(r.rates.missedDependency, r.rates.count), align: 'right' },
    ]),
  );
  console.log(
    `\nExact data: instruction counts of ${perFamily} random loop nests per row (chains of up to 4 loops, bounds x, x−k, ` +
      'triangular, log2 x; integer/half-integer coefficients); exact: the closed form with the true terms and coefficients; ' +
      'leading: the true leading term(s); inexact: flagged as no exact form found:',
  );
  console.log(exactTable(exactRows, false));
  console.log(
    `\nThe same nests' time (${TIME_NESTS} per row: counts × a cost per instruction, ±5% uniform jitter, 5 repetitions); ` +
      "leading: the leading terms grow like the count's (coefficients aside); counts-shaped: fitted with the counts' term set:",
  );
  console.log(
    renderTable(timeRows, [
      { header: 'data', value: (r) => r.data },
      { header: 'method', value: (r) => r.method },
      { header: 'leading', value: (r) => pct(r.outcome.leading, r.outcome.count), align: 'right' },
      { header: 'false dep.', value: (r) => pct(r.outcome.falseDependency, r.outcome.count), align: 'right' },
      { header: 'counts-shaped', value: (r) => pct(r.outcome.countsShaped, r.outcome.count), align: 'right' },
      { header: 'ms/path', value: (r) => r.msPerPath.toFixed(1), align: 'right' },
    ]),
  );
  // The issue's bar for the prior: no false dependencies, anywhere it is used.
  const priorRows = [...rows, ...extraRows].filter((r) => r.method.includes('prior'));
  const falseWithPrior = priorRows.reduce((sum, r) => sum + r.rates.falseDependency, 0);
  const modelsWithPrior = priorRows.reduce((sum, r) => sum + r.rates.count, 0);
  const exactPrior = exactRows.filter((r) => r.method.includes('prior'));
  const timePrior = timeRows.filter((r) => r.method.includes('prior'));
  console.log(
    `\nFalse dependencies with the taint prior: ${falseWithPrior} of ${modelsWithPrior.toLocaleString('en-US')} noisy models ` +
      `(${priorRows.length} rows above), ${exactPrior.reduce((sum, r) => sum + r.outcome.falseDependency, 0)} of ` +
      `${exactPrior.reduce((sum, r) => sum + r.outcome.count, 0)} exact-data models, ` +
      `${timePrior.reduce((sum, r) => sum + r.outcome.falseDependency, 0)} of ${timePrior.reduce((sum, r) => sum + r.outcome.count, 0)} nest-time models.`,
  );
  console.log(
    `\nTime (${ROUNDS} rounds; in-process rounds run after the recovery runs, with the JIT warm; ` +
      'the fresh-process rows are cold starts):',
  );
  const fmt = (v: number) => v.toFixed(0);
  console.log(
    renderTable(timings, [
      { header: 'work', value: (t) => t.what },
      { header: 'first wall ms', value: (t) => fmt(t.ms[0]!), align: 'right' },
      { header: 'first cpu ms', value: (t) => (t.what.startsWith('CLI') ? '-' : fmt(t.cpuMs[0]!)), align: 'right' },
      { header: 'best wall ms', value: (t) => fmt(Math.min(...t.ms)), align: 'right' },
      {
        header: 'best cpu ms',
        value: (t) => (t.what.startsWith('CLI') ? '-' : fmt(Math.min(...t.cpuMs))),
        align: 'right',
      },
      { header: 'all wall ms', value: (t) => t.ms.map(fmt).join(' ') },
    ]),
  );
  const load = loadavg()[0]!;
  if (load > cpus().length)
    console.log(`note: load average ${load.toFixed(1)} on ${cpus().length} CPUs; wall times include waiting for them.`);
}
