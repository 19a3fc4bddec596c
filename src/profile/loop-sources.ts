// Source lines and library marks for a loop profile: each loop context gets its loop's `file:line`
// and whether its function is library code (wasi-libc, libc++, the AssemblyScript runtime).
// Reports hide library loops by default: their cost stays in the inclusive cost of the program
// loop or function that called them, like Perf-Taint's library database folds library calls.
import type { SiteTable } from '../../instrument/sites.js';
import type { LoopEntry } from './loop-profile.js';
import { formatLocation } from '../../instrument/debug/locations.js';

export interface LoopSources {
  /** Where the `source` of each loop came from, or how to get source lines. */
  sources: { origin: string | null; note: string };
  /** Functions marked as library code. */
  libraryFunctions: string[];
}

export function loopSources(table: SiteTable, loops: LoopEntry[]): LoopSources {
  const loopById = new Map(table.loops.map((l) => [l.id, l]));
  const callById = new Map(table.calls.map((c) => [c.id, c]));
  const withCallLines = table.calls.some((c) => c.location);
  const homeFile = withCallLines ? functionFiles(table) : new Map<string, string>();
  for (const entry of loops) {
    const location = loopById.get(entry.loop)?.location;
    entry.source = location ? formatLocation(location) : null;
    if (withCallLines) {
      entry.callsiteSources = entry.callsites.map((id) => formatLocation(callById.get(id)?.location) || null);
      entry.callerFiles = entry.callsites.map((id) => {
        const caller = callById.get(id)?.function;
        return (caller && homeFile.get(caller)) ?? null;
      });
    }
  }
  return {
    sources: table.sources ?? { origin: null, note: '' },
    libraryFunctions: table.functions.filter((f) => f.library).map((f) => f.name),
  };
}

/** Each function's file: the one most of its loops' and call sites' locations are in. */
function functionFiles(table: SiteTable): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const site of [...table.loops, ...table.calls]) {
    if (!site.location) continue;
    const files = counts.get(site.function) ?? new Map<string, number>();
    files.set(site.location.file, (files.get(site.location.file) ?? 0) + 1);
    counts.set(site.function, files);
  }
  const home = new Map<string, string>();
  for (const [fn, files] of counts) home.set(fn, [...files].reduce((a, b) => (b[1] > a[1] ? b : a))[0]);
  return home;
}

/**
 * The program's own loop contexts: library ones left out, each kept loop re-parented to its nearest
 * kept ancestor (a program loop run by a library callback hangs under the program loop above).
 */
export function programLoops(loops: readonly LoopEntry[], library: ReadonlySet<string>): LoopEntry[] {
  const byId = new Map(loops.map((l) => [l.id, l]));
  const kept = (l: LoopEntry) => !library.has(l.function);
  const keptParent = (l: LoopEntry): LoopEntry | null => {
    for (let at = l.parent ? byId.get(l.parent) : undefined; at; at = at.parent ? byId.get(at.parent) : undefined)
      if (kept(at)) return at;
    return null;
  };
  const depthOf = new Map<string, number>();
  const out: LoopEntry[] = [];
  for (const loop of loops) {
    if (!kept(loop)) continue;
    const parent = keptParent(loop);
    out.push({ ...loop, parent: parent?.id ?? null });
  }
  // Depth along kept ancestors only (parents precede children in the profile's order or not: resolve lazily).
  const depth = (l: LoopEntry): number => {
    const known = depthOf.get(l.id);
    if (known !== undefined) return known;
    const parent = keptParent(l);
    const d = parent ? depth(parent) + 1 : 1;
    depthOf.set(l.id, d);
    return d;
  };
  return out.map((l) => ({ ...l, depth: depth(byId.get(l.id)!) }));
}
