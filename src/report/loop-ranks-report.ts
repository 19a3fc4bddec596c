// The loops of an SPMD run across ranks: for the costliest loop contexts, each one's inclusive
// instructions summarised over the ranks (mean, CV, min, max, max/mean). A balanced loop has CV 0;
// a loop only some ranks run (boundary handling, the root of a collective) stands out.
import type { LoopProfileReport } from '../profile/profile-run.js';
import type { LoopEntry } from '../profile/loop-profile.js';
import { displayName } from './names.js';
import { renderTable, type TableLayout } from './table.js';

export function loopRanksTable(report: LoopProfileReport, top: number, layout: TableLayout = {}): string {
  const spread = report.rankSpread;
  if (!spread) return '';
  const library = new Set(report.libraryFunctions ?? []);
  const loops = report.loops
    .filter((l) => !library.has(l.function) && spread[l.id])
    .sort((a, b) => b.inclusiveInstructions - a.inclusiveInstructions)
    .slice(0, top);
  const s = (l: LoopEntry) => spread[l.id]!;
  const table = renderTable(
    loops,
    [
      { header: 'loop', value: (l) => l.loop },
      { header: 'function', value: (l) => displayName(l.function), shrink: 'end', max: 24, min: 12 },
      { header: 'mean incl', value: (l) => Math.round(s(l).mean), align: 'right' },
      { header: 'cv', value: (l) => s(l).cv.toFixed(3), align: 'right' },
      { header: 'min', value: (l) => s(l).min, align: 'right' },
      { header: 'max', value: (l) => s(l).max, align: 'right' },
      { header: 'max/mean', value: (l) => s(l).imbalance.toFixed(2), align: 'right' },
    ],
    layout,
  );
  return `loop contexts over ranks (inclusive instructions per rank; the table above sums them)\n${table}`;
}
