// The terminal summary of an analysis: the ranked table first, then one line per other section.
import { renderTable, type TableLayout } from '../report/table.js';
import { displayPath, pathTail } from '../report/names.js';
import { formatRatio, formatShare, formatValue } from '../report/html/format.js';
import type { AnalysisReport } from './report.js';
import type { AnalysisFiles } from './analyze.js';

const longest = (flags: string[][]) => Math.max(5, ...flags.flat().map((flag) => flag.length));
const at = (point: Record<string, number>) =>
  Object.entries(point)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

export function renderSummary(report: AnalysisReport, files: AnalysisFiles, layout: TableLayout): string {
  const { taint, experiment, models, blame, overhead } = report;
  const lines: string[] = [];
  const chosen = taint.coverage.filter((row) => row.chosen);
  lines.push(
    `${report.module}: modeled ${chosen.map((row) => `${row.name} (${row.why}, ${formatShare(row.share)} of the work)`).join(', ')}`,
  );
  if (taint.prunable.length > 0) lines.push(`prunable (drive no loop): ${taint.prunable.join(', ')}`);
  lines.push(
    `experiment: ${experiment.design.points} point(s) (${experiment.points.measured} measured, ${experiment.points.resumed} resumed), ${experiment.design.reason}; ` +
      `mode ${experiment.mode}: ${experiment.instrumentedFunctions} function(s) instrumented`,
  );
  lines.push(
    '',
    `ranked call paths at ${at(models.target)} (instructions: exact counts; ms: the time model's prediction):`,
  );
  lines.push(
    renderTable(
      models.ranked,
      [
        { header: 'rank', value: (r) => r.rank, align: 'right' },
        { header: 'call path', value: (r) => displayPath(r.callpath), shrink: pathTail, min: 24, max: 48 },
        { header: 'instructions', value: (r) => r.instructions.model, shrink: 'wrap', min: 20 },
        { header: 'predicted', value: (r) => formatValue(r.instructions.prediction), align: 'right' },
        { header: 'share', value: (r) => formatShare(r.shareAtTarget), align: 'right' },
        { header: 'ms', value: (r) => (r.time ? formatValue(r.time.prediction) : '-'), align: 'right' },
        // A flag is never cut: a column keeps at least the longest one.
        {
          header: 'flags',
          value: (r) => r.instructions.flags.join(' '),
          shrink: 'wrap',
          min: longest(models.ranked.map((r) => r.instructions.flags)),
        },
        {
          header: 'time flags',
          value: (r) => r.time?.flags.join(' ') ?? '-',
          shrink: 'wrap',
          min: longest(models.ranked.map((r) => r.time?.flags ?? [])),
        },
      ],
      layout,
    ),
  );
  lines.push(
    '',
    models.scalabilityBugs.length === 0
      ? 'scalability bugs: none'
      : `scalability bugs: ${models.scalabilityBugs.map((b) => `${displayPath(b.callpath)} (${b.metric}, ${b.flag})`).join(', ')}`,
  );
  for (const warning of models.warnings) lines.push(`warning: ${warning}`);
  if (blame.report) {
    for (const point of blame.report.blamePoints) {
      const top = point.variables
        .slice(0, 5)
        .map((v) => `${v.name} ${v.percent.toFixed(1)}%`)
        .join(', ');
      lines.push(`blame at ${point.function} (${at(blame.point)}): ${top}`);
    }
  } else {
    lines.push(`blame: ${blame.missing}`);
  }
  if (overhead) {
    lines.push(
      `overhead (runtime ÷ none, ${overhead.points} point(s) × ${overhead.rounds} round(s)): ${overhead.modes.map((m) => `${m.mode} ${formatRatio(m.ratio)}`).join(', ')}`,
    );
  } else {
    lines.push('overhead: turned off in the config');
  }
  lines.push('', `report: ${files.html} (and ${files.report}); ${report.seconds.total.toFixed(1)} s`);
  return lines.join('\n');
}
