// LULESH as Perf-Taint sees it (docs/lulesh.md): per parameter, the functions with a loop whose
// exit depends on it, from a taint report, and Perf-Taint's own sets for the same program
// (bench/data/lulesh-perftaint.json: merged over its 8 per-rank JSON files). Shared by
// `npm run bench:lulesh` and test/taint/lulesh-perftaint.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TaintReport } from '../src/taint/report.js';

/** LULESH's six parameters, in the order the tables show them. */
export const LULESH_PARAMETERS = ['size', 'regions', 'p', 'iters', 'balance', 'cost'] as const;

export type FunctionSets = Record<string, string[]>;

/** libc++ 9 (Perf-Taint's) names its inline namespace `__1`, wasi's libc++ 14 `__2`: compare them as one. */
export const sameLibcxx = (name: string) => name.replaceAll('std::__1::', 'std::__2::');

/** Per parameter, the sorted names of the functions with a loop depending on it (over every context and rank). */
export function functionSets(report: Pick<TaintReport, 'loops' | 'parameters'>): FunctionSets {
  const sets: FunctionSets = {};
  for (const parameter of report.parameters) {
    const names = new Set(report.loops.filter((l) => l.params.includes(parameter)).map((l) => l.function));
    sets[parameter] = [...names].sort();
  }
  return sets;
}

/** Perf-Taint's sets, names as libc++ 14 spells them. */
export function perfTaintSets(): FunctionSets {
  // Beside this file in source; from dist/bench/, in the source tree's bench/.
  const here = fileURLToPath(new URL('./data/lulesh-perftaint.json', import.meta.url));
  const file = existsSync(here)
    ? here
    : fileURLToPath(new URL('../../bench/data/lulesh-perftaint.json', import.meta.url));
  const data = JSON.parse(readFileSync(file, 'utf8')) as { parameters: FunctionSets };
  const sets: FunctionSets = {};
  for (const [parameter, names] of Object.entries(data.parameters)) sets[parameter] = names.map(sameLibcxx).sort();
  return sets;
}

/** The functions in both sets, only in ours and only in Perf-Taint's. */
export function compareSets(
  ours: string[],
  theirs: string[],
): { both: string[]; onlyOurs: string[]; onlyTheirs: string[] } {
  const mine = new Set(ours);
  const other = new Set(theirs);
  return {
    both: ours.filter((f) => other.has(f)),
    onlyOurs: ours.filter((f) => !other.has(f)),
    onlyTheirs: theirs.filter((f) => !mine.has(f)),
  };
}
