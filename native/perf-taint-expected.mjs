// Writes native/wasm/perf-taint/expected.json: for each of Perf-Taint's unit programs built by
// native/build-perf-taint-units.sh, how Perf-Taint's own test runs it (the command-line words,
// mpiexec's rank count, what `echo` pipes to stdin) and the loop instances its expected output
// holds per function (C++ names demangled with c++filt, as the module's name section spells them).
// Usage: node native/perf-taint-expected.mjs PERF_TAINT_DIR   (run by the build script)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const units = join(process.argv[2], 'tests', 'unit');
const out = new URL('./wasm/perf-taint/expected.json', import.meta.url);
const demangle = (names) =>
  names.length === 0 ? [] : execFileSync('c++filt', names, { encoding: 'utf8' }).trimEnd().split('\n');

/**
 * How the unit's RUN lines run it: the words after the binary, mpiexec's ranks, what `echo` pipes
 * in (first run), and the instrumentation modes (`%opt` with `%opt_cfsan`: control flow as well).
 */
function runOf(source) {
  const lines = readFileSync(source, 'utf8').split('\n').filter((l) => l.startsWith('// RUN:'));
  const passes = lines.filter((l) => l.startsWith('// RUN: %opt '));
  const implicitFlow = [...new Set(passes.map((l) => l.includes('%opt_cfsan')))];
  const line = lines.find((l) => l.includes('%execparams'));
  if (!line) throw new Error(`${source}: no %execparams RUN line`);
  const ranks = /mpiexec -n (\d+)/.exec(line);
  const stdin = /echo (\S+) \|/.exec(line);
  const words = line.replace(/>.*$/, '').split(/\s+/);
  const exe = words.findIndex((w) => w.endsWith('.exe'));
  return {
    implicitFlow,
    argv: words.slice(exe + 1).filter((w) => w !== ''),
    ...(ranks ? { ranks: Number(ranks[1]) } : {}),
    ...(stdin ? { stdin: `${stdin[1]}\n` } : {}),
  };
}

function expectedOf(json) {
  const functions = JSON.parse(readFileSync(json, 'utf8')).functions ?? {};
  const mangled = Object.keys(functions);
  const names = demangle(mangled);
  const result = {};
  mangled.forEach((key, i) => {
    result[names[i] ?? key] = functions[key].loops.map((loop) => loop.instance);
  });
  return result;
}

const result = [];
for (const dir of ['control-flow', 'dataflow', 'mpi']) {
  const sources = execFileSync('ls', [join(units, dir)], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(c|cpp)$/.test(f) && existsSync(join(units, dir, `${f}.json`)))
    .sort();
  for (const file of sources) {
    const source = join(units, dir, file);
    result.push({ unit: `${dir}_${file.replace(/\.[^.]+$/, '')}`, ...runOf(source), functions: expectedOf(`${source}.json`) });
  }
}
const staticMain = join(units, 'dataflow', 'bug_static_functions', 'main.c');
result.push({
  unit: 'dataflow_bug_static_functions',
  ...runOf(staticMain),
  functions: expectedOf(`${staticMain}.merge.json`),
});
// Perf-Taint's MPI function database (share/mpi_abilist.txt, its `%opt_mpi` flag) as a Taintlens
// library file: the MPI units run with it (`--library`), over mpi.h's taintlens_mp.mpi_* imports,
// whose arguments sit where MPI's do.
const database = JSON.parse(readFileSync(join(process.argv[2], 'share', 'mpi_abilist.txt'), 'utf8'));
const imports = {};
for (const [name, { loops }] of Object.entries(database.functions)) {
  imports[`taintlens_mp.${name.toLowerCase()}`] = {
    result: 'none',
    cost: {
      params: loops.params.filter((p) => typeof p === 'string'),
      args: loops.params.filter((p) => typeof p !== 'string').map((p) => p.pos),
    },
  };
}
writeFileSync(
  new URL('./wasm/perf-taint/mpi-database.json', import.meta.url),
  JSON.stringify({ description: "Perf-Taint's MPI database (share/mpi_abilist.txt) over mpi.h's imports", imports }, null, 1) + '\n',
);
writeFileSync(out, JSON.stringify({ source: 'github.com/spcl/perf-taint tests/unit', units: result }, null, 1) + '\n');
console.log(`${basename(out.pathname)}: ${result.length} units`);
