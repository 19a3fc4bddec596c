// Samples due inside a folded leaf (instrument/passes/sample.ts shortLeaves): such a leaf carries no
// code, its caller's region counts its instructions and takes the sample at the region's check. The
// record keeps the countdown the check left (negative), so the sample's position in the region is
// `regionInstructions + countdown`; when it lies among a folded call's instructions, the sample was
// due inside that leaf, and the profile puts it under the leaf's call path as the exact one does.
import type { FoldedCallEntry, SampleLayout } from '../../instrument/passes/sample.js';

/** The folded leaf (site-table index) a sample of `region` with `countdown` fell into, or null. */
export type FoldedLeafOf = (region: number, countdown: number) => number | null;

export function foldedLeafLookup(layout: Pick<SampleLayout, 'foldedCalls'>): FoldedLeafOf {
  const byRegion = new Map<number, FoldedCallEntry[]>();
  for (const entry of layout.foldedCalls ?? []) {
    const list = byRegion.get(entry[0]);
    if (list) list.push(entry);
    else byRegion.set(entry[0], [entry]);
  }
  return (region, countdown) => {
    const calls = byRegion.get(region);
    if (!calls) return null;
    const position = calls[0]![1] + countdown;
    for (const [, , leaf, start, instructions] of calls)
      if (position >= start && position < start + instructions) return leaf;
    return null;
  };
}
