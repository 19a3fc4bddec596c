// `npm run bench:lulesh`: LULESH 2.0 as Perf-Taint analysed it (docs/lulesh.md). Runs
// `taintlens taint` on the committed LULESH modules (native/build-lulesh-perftaint.sh) with
// Perf-Taint's run — 8 ranks, `-s 5`, to completion — for both builds (Perf-Taint's compile line
// and the IR its pass analyses) and three semantics (the default, `--implicit-flow loops
// --pointer-labels join`; DFSan's, `--implicit-flow off`; every branch's control flow,
// `--implicit-flow on`), each in a process of its own, and prints per parameter how many
// functions have a loop depending on it, against Perf-Taint's own output, with the functions that
// differ, and each run's wall time, CPU time and peak RSS.
//
//   npm run bench:lulesh [-- --argv "-s 5 -i 2"] [--ranks 8] [--json FILE]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { TaintReport } from '../src/taint/report.js';
import { renderTable } from '../src/report/table.js';
import { compareSets, functionSets, LULESH_PARAMETERS, perfTaintSets, type FunctionSets } from './lulesh-sets.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), import.meta.url.endsWith('.ts') ? '..' : '../..');
const BUILDS = { flags: 'lulesh_pt_flags_mpi.wasm', ir: 'lulesh_pt_ir_mpi.wasm' } as const;
const SEMANTICS = {
  default: [],
  dfsan: ['--implicit-flow', 'off'],
  branches: ['--implicit-flow', 'on'],
} as const;
type Build = keyof typeof BUILDS;
type Semantics = keyof typeof SEMANTICS;

interface RunResult {
  build: Build;
  semantics: Semantics;
  sets: FunctionSets;
  wallSeconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** One configuration, in this process: the CLI's taint command; prints its result as one JSON line. */
async function runOne(build: Build, semantics: Semantics, ranks: string, argv: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-lulesh-'));
  try {
    const output = join(dir, 'report.json');
    const module = join(REPO, 'native', 'wasm', BUILDS[build]);
    const started = performance.now();
    const code = await main(['taint', module, '--ranks', ranks, ...SEMANTICS[semantics], '-o', output, '--', ...argv]);
    if (code !== 0) throw new Error(`taint ${module} exited with ${code}`);
    const usage = process.resourceUsage();
    const report = JSON.parse(readFileSync(output, 'utf8')) as TaintReport;
    const result: RunResult = {
      build,
      semantics,
      sets: functionSets(report),
      wallSeconds: (performance.now() - started) / 1000,
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      peakRssMiB: usage.maxRSS / 1024,
    };
    process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(build: Build, semantics: Semantics, ranks: string, argv: string): RunResult {
  const self = fileURLToPath(import.meta.url);
  const loader = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawnSync(
    process.execPath,
    [...loader, self, '--one', `${build}:${semantics}`, '--ranks', ranks, '--argv', argv],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const line = child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (child.status !== 0 || !line) throw new Error(`${build}/${semantics}: ${child.stderr.trim() || 'no result'}`);
  return JSON.parse(line.slice('RESULT '.length)) as RunResult;
}

const ranks = option('--ranks') ?? '8';
const argv = option('--argv') ?? '-s 5';
const one = option('--one');
if (one) {
  const [build, semantics] = one.split(':') as [Build, Semantics];
  await runOne(build, semantics, ranks, argv.split(/\s+/).filter(Boolean));
} else {
  const theirs = perfTaintSets();
  const results: RunResult[] = [];
  for (const build of Object.keys(BUILDS) as Build[])
    for (const semantics of Object.keys(SEMANTICS) as Semantics[]) {
      const result = runChild(build, semantics, ranks, argv);
      results.push(result);
      process.stderr.write(
        `${build}/${semantics}: ${result.wallSeconds.toFixed(1)} s wall, ${result.cpuSeconds.toFixed(1)} s CPU, ${result.peakRssMiB.toFixed(0)} MiB peak RSS\n`,
      );
    }
  // Per configuration: our count, then how many functions only we and only Perf-Taint report.
  const columns = [
    { header: 'parameter', value: (p: string) => p },
    { header: 'Perf-Taint', value: (p: string) => theirs[p]?.length ?? 0 },
    ...results.map((r) => ({
      header: `${r.build}/${r.semantics}`,
      value: (p: string) => {
        const { onlyOurs, onlyTheirs } = compareSets(r.sets[p] ?? [], theirs[p] ?? []);
        return `${r.sets[p]?.length ?? 0} (+${onlyOurs.length} -${onlyTheirs.length})`;
      },
    })),
  ];
  console.log(`LULESH, ${ranks} ranks, -- ${argv}: functions with a loop depending on each parameter`);
  console.log(renderTable([...LULESH_PARAMETERS], columns));
  for (const r of results)
    for (const p of LULESH_PARAMETERS) {
      const { onlyOurs, onlyTheirs } = compareSets(r.sets[p] ?? [], theirs[p] ?? []);
      if (onlyOurs.length > 0) console.log(`${r.build}/${r.semantics} ${p}, only ours: ${onlyOurs.join('; ')}`);
      if (onlyTheirs.length > 0)
        console.log(`${r.build}/${r.semantics} ${p}, only Perf-Taint's: ${onlyTheirs.join('; ')}`);
    }
  const json = option('--json');
  if (json) writeFileSync(json, JSON.stringify({ ranks, argv, perfTaint: theirs, results }, null, 2));
}
