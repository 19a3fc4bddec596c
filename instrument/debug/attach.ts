// Puts source locations and library marks on a site table. Loops and calls are matched by ordinal
// within their function: Binaryen reads them 1:1 (code-scan.ts); a function whose counts differ
// keeps its own location but no loop or call locations rather than wrong ones.
import type { FunctionAnalysis, SiteTable } from '../sites.js';
import { NO_DEBUG_INFO_NOTE, readModuleLocations, type ModuleLocations } from './locations.js';
import { isLibraryFunction, programHasLines } from './library-code.js';

/** `functions` (the passes' view of the table): also gets the lines of its conditional branches. */
export function attachSourceLocations(
  table: SiteTable,
  bytes: Uint8Array,
  file: string,
  sourceMap?: string,
  functions?: FunctionAnalysis[],
): void {
  // Debug info only adds to reports: unreadable debug info is noted, never fatal.
  let located: ModuleLocations;
  try {
    located = readModuleLocations(bytes, file, sourceMap);
  } catch (error) {
    located = {
      origin: null,
      note: `debug info not read (${(error as Error).message}); ${NO_DEBUG_INFO_NOTE}`,
      functions: [],
    };
  }
  table.sources = { origin: located.origin, note: located.note };
  const loopById = new Map(table.loops.map((l) => [l.id, l]));
  const callById = new Map(table.calls.map((c) => [c.id, c]));
  const withDebugInfo = located.origin !== null;
  const programLines = programHasLines(located.functions.map((f) => f?.files ?? []));
  table.functions.forEach((fn, i) => {
    const found = located.functions[i];
    fn.location = found?.location ?? null;
    fn.library = isLibraryFunction(fn.name, found?.files ?? [], withDebugInfo, programLines);
    if (!found) return;
    if (found.loops.length === fn.loops.length)
      fn.loops.forEach((id, k) => {
        loopById.get(id)!.location = found.loops[k] ?? null;
      });
    if (found.calls.length === fn.calls.length)
      fn.calls.forEach((id, k) => {
        callById.get(id)!.location = found.calls[k] ?? null;
      });
    const analysis = functions?.[i];
    if (analysis && withDebugInfo && found.branches.length === analysis.branchExprs.length)
      analysis.branchLocations = found.branches;
  });
}
