// `npm run bench:model`: how well the PMNF modeler recovers synthetic functions, with and without
// the taint prior, next to a re-implementation of Extra-P's modeler on the same functions; and
// how long 1,000 two-parameter call paths take.
//
//   node dist/bench/model.js [--seed 1] [--per-family 200] [--paths 1000] [--json]
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
  extrapLikeMethod,
  ourMethod,
  recoveryRates,
  syntheticCases,
  type Method,
  type Rates,
} from '../src/model/benchmark.js';
import { DEFAULT_GROWTH, modelExperiment } from '../src/model/modeler.js';
import { DEFAULT_DESIGN, FAMILY_TEXT, rng, syntheticFunction, syntheticSeries, syntheticTaintReport, type Family } from '../src/model/synthetic.js';
import type { Experiment, Series } from '../src/model/types.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
const seed = arg('--seed', 1);
const perFamily = arg('--per-family', 200);
const paths = arg('--paths', 1000);
const json = process.argv.includes('--json');
const NOISES = [0.01, 0.05, 0.1];

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

const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);

function methodsFor(cases: Parameters<Method>[0]): Array<[string, Method]> {
  const taintJson = syntheticTaintReport(cases.map((c) => c.fn)) as Record<string, unknown>;
  const withLoops = parseTaintReport(taintJson, 'synthetic-taint.json');
  const dependencyOnly = parseTaintReport({ ...taintJson, loops: [] }, 'synthetic-taint.json');
  return [
    ['Extra-P-like (mean)', extrapLikeMethod],
    ['ours', ourMethod()],
    ['ours + prior (dependency)', ourMethod(dependencyOnly)],
    ['ours + prior (loop nests)', ourMethod(withLoops)],
    ['ours, mean', ourMethod(undefined, 'mean')],
    ['ours, mean + prior (nests)', ourMethod(withLoops, 'mean')],
  ];
}

const rows: Row[] = [];
const extraRows: Row[] = [];
for (const noise of NOISES) {
  const cases = syntheticCases(seed + Math.round(noise * 1000), perFamily, noise);
  for (const [method, run] of methodsFor(cases)) rows.push({ noise, method, rates: recoveryRates(cases, run, method.includes('mean') ? 'mean' : 'median') });
  const extra = syntheticCases(seed + 7 + Math.round(noise * 1000), perFamily, noise, DEFAULT_DESIGN, EXTRA_FAMILIES);
  for (const [method, run] of methodsFor(extra).filter(([name]) => name.startsWith('ours'))) {
    extraRows.push({ noise, method, rates: recoveryRates(extra, run, method.includes('mean') ? 'mean' : 'median') });
  }
}

// Timing: 1,000 two-parameter call paths (mixed families, ±5%), in memory and from a JSONL file.
function timingExperiment(count: number): { experiment: Experiment; taint: unknown } {
  const random = rng(seed + 99);
  const functions = [];
  const series: Series[] = [];
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length] as Family;
    const fn = syntheticFunction(random, family, `k${i}`);
    functions.push(fn);
    series.push(syntheticSeries(random, fn, 0.05));
  }
  return { experiment: { source: 'synthetic', params: [...DEFAULT_DESIGN.params], series }, taint: syntheticTaintReport(functions) };
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
const dir = mkdtempSync(join(tmpdir(), 'taintlens-bench-'));
try {
  const file = join(dir, 'measurements.jsonl');
  const lines: string[] = [];
  for (const s of experiment.series) {
    for (const point of s.points) {
      for (const value of point.values) {
        lines.push(JSON.stringify({ params: { p: point.coords[0], n: point.coords[1] }, callpath: s.callpath, metric: s.metric, value }));
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
        design: DEFAULT_DESIGN,
        recovery: rows.map(compact),
        beyondExtrap: extraRows.map(compact),
        timing: timings,
      },
      null,
      2,
    ) + '\n',
  );
} else {
  console.log(
    `Model recovery: ${perFamily} functions per family (${FAMILIES.map((f) => `${f}: ${FAMILY_TEXT[f]}`).join('; ')}), ` +
      `parameters p ∈ {${DEFAULT_DESIGN.values[0].join(',')}} × n ∈ {${DEFAULT_DESIGN.values[1].join(',')}}, ` +
      `${DEFAULT_DESIGN.repetitions} repetitions, uniform ±noise; seed ${seed}.`,
  );
  console.log('exact: the same terms with the same exponents; structure: the same parameter sets per term.');
  console.log('wrong fits better: misses where the true terms, refitted, fit the aggregated data worse than the chosen model.\n');
  console.log(
    renderTable(rows, [
      { header: 'noise', value: (r) => `±${Math.round(r.noise * 100)}%` },
      { header: 'method', value: (r) => r.method },
      { header: 'exact', value: (r) => pct(r.rates.exact, r.rates.count), align: 'right' },
      { header: 'structure', value: (r) => pct(r.rates.structure, r.rates.count), align: 'right' },
      { header: 'false dep.', value: (r) => pct(r.rates.falseDependency, r.rates.count), align: 'right' },
      { header: 'missed dep.', value: (r) => pct(r.rates.missedDependency, r.rates.count), align: 'right' },
      { header: 'wrong fits better', value: (r) => pct(r.rates.dataFavorWrong, r.rates.count - r.rates.exact), align: 'right' },
      { header: 'contention flags', value: (r) => (r.method.includes('prior') ? pct(r.rates.contentionFlags, r.rates.count) : '-'), align: 'right' },
      { header: 'too-narrow flags', value: (r) => (r.method.includes('prior') ? pct(r.rates.tooNarrowFlags, r.rates.count) : '-'), align: 'right' },
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
  console.log(`\nBeyond Extra-P's hypothesis space (${EXTRA_FAMILIES.map((f) => `${f}: ${FAMILY_TEXT[f]}`).join('; ')}):`);
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
      { header: 'best cpu ms', value: (t) => (t.what.startsWith('CLI') ? '-' : fmt(Math.min(...t.cpuMs))), align: 'right' },
      { header: 'all wall ms', value: (t) => t.ms.map(fmt).join(' ') },
    ]),
  );
  const load = loadavg()[0]!;
  if (load > cpus().length) console.log(`note: load average ${load.toFixed(1)} on ${cpus().length} CPUs; wall times include waiting for them.`);
}
