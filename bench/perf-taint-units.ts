// Perf-Taint's own unit programs (github.com/spcl/perf-taint tests/unit), built unchanged with its
// flags by native/build-perf-taint-units.sh, run as its tests run them (the same command-line
// words, mpiexec's ranks as --ranks, its MPI database as a library, and each instrumentation mode
// its RUN lines use: data flow only, control flow too), compared with its expected output.
// A unit matches when, in every mode, each function the expected output lists has exactly the
// parameters Perf-Taint found in its loops, and no other function of the program has any (library
// code aside). Functions compare by name: the module's name section spells C++ names demangled,
// as the expected file records them; an MPI call is its mpi.h wrapper (`MPI_Send(...)`), and a
// static function linked twice (`f`, `f_9`) is one function, as Perf-Taint's -perf-taint-remove-
// duplicates merges it. `node dist/bench/perf-taint-units.js [--only a,b]` prints every unit.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { analyzeTaint } from '../src/taint/analyze.js';
import { loadLibrary, mergeLibraries, shippedLibraries } from '../src/taint/library.js';
import type { TaintReport } from '../src/taint/report.js';

// From bench/ (under tsx) or dist/bench/: native/ sits at the repository's top.
const top = existsSync(fileURLToPath(new URL('../package.json', import.meta.url))) ? '..' : '../..';
const dir = fileURLToPath(new URL(`${top}/native/wasm/perf-taint/`, import.meta.url));

interface PtInstanceLoop {
  params?: string[][];
  loops?: Record<string, PtInstanceLoop>;
}

export interface PerfTaintUnit {
  unit: string;
  /** Instrumentation modes the unit's RUN lines use (true: control flow too, Perf-Taint's cfsan). */
  implicitFlow: boolean[];
  argv: string[];
  ranks?: number;
  stdin?: string;
  /** Per function, its loop instances in Perf-Taint's expected output. */
  functions: Record<string, Array<Record<string, PtInstanceLoop>>>;
}

export function perfTaintUnits(): PerfTaintUnit[] {
  return (JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { units: PerfTaintUnit[] }).units;
}

/** The parameters of every loop of a function's instances. */
function paramsOfInstances(instances: Array<Record<string, PtInstanceLoop>>): Set<string> {
  const params = new Set<string>();
  const walk = (loops: Record<string, PtInstanceLoop>) => {
    for (const loop of Object.values(loops)) {
      for (const exit of loop.params ?? []) for (const p of exit) params.add(p);
      if (loop.loops) walk(loop.loops);
    }
  };
  instances.forEach(walk);
  return params;
}

/** Per function with parameters: Perf-Taint's name for it and its parameters. */
function foundParams(report: TaintReport): Map<string, Set<string>> {
  const names = new Set(report.functions.map((f) => f.name));
  const nameOf = (name: string) => {
    const base = name.startsWith('MPI_') ? name.replace(/\(.*$/, '') : name;
    const twin = /^(.*)_\d+$/.exec(base)?.[1];
    return twin !== undefined && names.has(twin) ? twin : base;
  };
  const found = new Map<string, Set<string>>();
  for (const f of report.functions) {
    if (f.params.length === 0 || f.library) continue;
    const params = found.get(nameOf(f.name)) ?? new Set<string>();
    for (const p of f.params) params.add(p);
    found.set(nameOf(f.name), params);
  }
  return found;
}

/** The functions whose parameters differ from Perf-Taint's, one line each; empty when the unit matches. */
export function unitDifferences(unit: PerfTaintUnit, report: TaintReport): string[] {
  const expected = new Map<string, Set<string>>();
  for (const [name, instances] of Object.entries(unit.functions)) {
    const params = paramsOfInstances(instances);
    if (params.size > 0) expected.set(name, params);
  }
  const found = foundParams(report);
  const text = (s: Set<string> | undefined) => [...(s ?? [])].sort().join(', ');
  return [...new Set([...expected.keys(), ...found.keys()])]
    .filter((name) => text(expected.get(name)) !== text(found.get(name)))
    .map((name) => `${name}: Perf-Taint {${text(expected.get(name))}}, Taintlens {${text(found.get(name))}}`);
}

/** Runs a unit in one mode as Perf-Taint's test does. */
export async function runUnit(unit: PerfTaintUnit, implicitFlow: boolean): Promise<TaintReport> {
  const file = join(dir, `${unit.unit}.wasm`);
  const bytes = readFileSync(file);
  const libraries = shippedLibraries(bytes);
  if (unit.ranks !== undefined) libraries.push(loadLibrary(join(dir, 'mpi-database.json')));
  const { report } = await analyzeTaint({
    file,
    bytes,
    invoke: null,
    args: [],
    argv: unit.argv,
    params: [],
    library: mergeLibraries(...libraries),
    implicitFlow: implicitFlow ? 'on' : 'off',
    wasi: {
      preopens: [],
      env: {},
      clock: 'virtual',
      ...(unit.stdin !== undefined ? { stdin: new TextEncoder().encode(unit.stdin) } : {}),
    },
    ...(unit.ranks !== undefined ? { ranks: unit.ranks } : {}),
  });
  return report;
}

async function main(): Promise<void> {
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '').split(',') : null;
  const units = perfTaintUnits().filter((u) => !only || only.includes(u.unit));
  let matched = 0;
  for (const unit of units) {
    const lines: string[] = [];
    for (const implicitFlow of unit.implicitFlow) {
      const differences = unitDifferences(unit, await runUnit(unit, implicitFlow));
      const mode = implicitFlow ? 'control flow' : 'data flow';
      lines.push(...differences.map((d) => `    ${mode}: ${d}`));
    }
    if (lines.length === 0) matched++;
    console.log(`${lines.length === 0 ? 'match' : 'DIFF '} ${unit.unit}${lines.map((l) => `\n${l}`).join('')}`);
  }
  // Perf-Taint's 33rd unit (openmp/cpp_class_openmp) needs OpenMP, which wasm32-wasi lacks.
  console.log(
    `${matched}/${units.length} units match Perf-Taint's expected output (${matched}/33 with the OpenMP unit)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
