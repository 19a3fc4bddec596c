// Library call paths folded into their callers before modelling.
//
// A WASI program's measurements carry a call path for every libc function it reaches (printf_core,
// __fwritex, atoi, malloc, …): 30 of gemm's 41 call paths, none of them the user's code, and the
// data-dependent ones (atoi's digit loop, printf's formatting) are the most expensive to model.
// Like Perf-Taint's library database, their cost goes to the program function that called them:
// an exclusive cost (time, instructions) is added to the nearest caller that is not library code,
// repetition by repetition; a count of entries (visits) is the library function's own and is
// dropped. Which functions are library code is the caller's to say (src/model knows no module).
import type { Experiment, Point, Series } from './types.js';
import { ROOT_CALLPATH } from './design.js';
import { addRepetitions, ENTRY_COUNTS } from './root.js';

export interface FoldResult {
  experiment: Experiment;
  /** Call paths (per metric, counted once) folded into a caller. */
  folded: number;
}

/** The function an element of a call path names (`file/fn` keeps its last part). */
function functionOf(element: string): string {
  return element.split('/').pop() ?? element;
}

/** The nearest call path above `callpath` whose function is not library code; undefined when it is not library code itself, or nothing above it is program code. */
export function foldTarget(callpath: string, isLibrary: (fn: string) => boolean): string | undefined {
  if (callpath === ROOT_CALLPATH) return undefined;
  const elements = callpath.split('->');
  if (!isLibrary(functionOf(elements[elements.length - 1]!))) return undefined;
  for (let end = elements.length - 1; end > 0; end--) {
    if (!isLibrary(functionOf(elements[end - 1]!))) return elements.slice(0, end).join('->');
  }
  return undefined;
}

const pointKey = (point: Point) => point.coords.join(',');

/** Adds `from`'s values to `into`'s, point by point. */
function addInto(into: Series, from: Series): void {
  const byPoint = new Map(into.points.map((point) => [pointKey(point), point]));
  for (const point of from.points) {
    const target = byPoint.get(pointKey(point));
    if (!target) {
      const copy = { coords: [...point.coords], values: [...point.values] };
      into.points.push(copy);
      byPoint.set(pointKey(copy), copy);
      continue;
    }
    addRepetitions(target, point);
  }
}

/** The experiment with every library call path folded into its nearest program caller. */
export function foldLibraryCallpaths(experiment: Experiment, isLibrary: (fn: string) => boolean): FoldResult {
  const kept = new Map<string, Series>();
  const key = (metric: string, callpath: string) => `${metric}\u0000${callpath}`;
  const clone = (series: Series, callpath = series.callpath): Series => ({
    ...series,
    callpath,
    params: [...series.params],
    points: series.points.map((point) => ({ coords: [...point.coords], values: [...point.values] })),
  });
  const library: { series: Series; into: string }[] = [];
  const folded = new Set<string>();
  for (const series of experiment.series) {
    const into = foldTarget(series.callpath, isLibrary);
    if (into === undefined) kept.set(key(series.metric, series.callpath), clone(series));
    else library.push({ series, into });
  }
  for (const { series, into } of library) {
    folded.add(series.callpath);
    if (ENTRY_COUNTS.has(series.metric)) continue;
    const existing = kept.get(key(series.metric, into));
    if (existing) addInto(existing, series);
    else kept.set(key(series.metric, into), clone(series, into));
  }
  return { experiment: { ...experiment, series: [...kept.values()] }, folded: folded.size };
}
