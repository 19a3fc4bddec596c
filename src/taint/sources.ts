// Source lines and library marks for the taint report, from the site table's debug info: each loop
// and function gets its `file:line`, library functions (wasi-libc, libc++, AS runtime) are marked so
// the text report lists the program's own code first and leaves library code to --all.
import type { SiteTable } from '../../instrument/sites.js';
import { formatLocation } from '../../instrument/debug/locations.js';
import type { TaintReport } from './report.js';

export function addTaintSources(report: TaintReport, sites: SiteTable): TaintReport {
  const loopSite = new Map(sites.loops.map((l) => [l.id, l]));
  const functionSite = new Map(sites.functions.map((f) => [f.name, f]));
  for (const loop of report.loops) loop.source = sourceOf(loopSite.get(loop.id)?.location);
  for (const fn of report.functions) {
    const site = functionSite.get(fn.name);
    fn.source = sourceOf(site?.location);
    fn.library = site?.library === true;
  }
  report.sources = sites.sources ?? { origin: null, note: '' };
  return report;
}

function sourceOf(location: Parameters<typeof formatLocation>[0]): string | null {
  return location ? formatLocation(location) : null;
}
