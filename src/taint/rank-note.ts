// The text report's note on an SPMD taint run: the report is the union over ranks, and loops whose
// parameters (or whether they ran) differ between ranks are listed with each rank's view.
import type { MergedTaintReport } from './merge-ranks.js';

export function rankNote(report: MergedTaintReport): string {
  const ranks = report.ranks;
  if (!ranks || ranks.length < 2) return '';
  const lines = [`\nSPMD: merged over ${ranks.length} ranks (a loop depends on a parameter when it does on any rank)`];
  for (const loop of report.loops.filter((l) => l.executed)) {
    const views = ranks.map((r) => (r.loops[loop.id] ? r.loops[loop.id]!.join(', ') || '-' : 'not run'));
    if (new Set(views).size > 1)
      lines.push(`  ${loop.id} (${loop.function}) differs by rank: ${views.map((v, i) => `${i}: ${v}`).join('; ')}`);
  }
  if (lines.length === 1) lines.push('  every loop has the same parameters on every rank');
  return lines.join('\n');
}
