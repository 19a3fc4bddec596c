// Folds the loop profiler's per-call-path counts onto region call paths, as a measurement with
// only some functions instrumented sees them (Score-P): a call path keeps only its region
// functions, and what ran in a function left out counts to the nearest region that called it
// (to `<root>` when no region called it).
import type { CallpathEntry } from '../profile/loop-profile.js';
import { DEFAULT_CALLPATH } from '../io/measurements.js';

export function foldOntoRegions(callpaths: CallpathEntry[], regions: string[]): CallpathEntry[] {
  const isRegion = new Set(regions);
  const folded = new Map<string, CallpathEntry>();
  for (const entry of callpaths) {
    const names = entry.callpath.split('->');
    const kept = names.filter((name) => isRegion.has(name));
    const callpath = kept.length > 0 ? kept.join('->') : DEFAULT_CALLPATH;
    const target = folded.get(callpath) ?? { callpath, calls: 0, instructions: 0, inclusiveInstructions: 0 };
    target.instructions += entry.instructions;
    // Visits and inclusive counts belong to the region's own entries only.
    if (isRegion.has(names.at(-1)!)) {
      target.calls += entry.calls;
      target.inclusiveInstructions += entry.inclusiveInstructions;
    }
    folded.set(callpath, target);
  }
  return [...folded.values()];
}
