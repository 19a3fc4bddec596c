// The terminal summary of an analysis: the ranked table first, then one line per other section.
import { renderTable, type TableLayout } from '../report/table.js';
import { displayPath, pathTail } from '../report/names.js';
import { formatOverhead, formatShare, formatValue } from '../report/html/format.js';
import { wrap } from '../report/wrap.js';
import type { AnalysisReport } from './report.js';
import type { AnalysisFiles } from './analyze.js';
import { rankingLegend, shownFlags, type ModelSummary, type RankedModel } from './model-step.js';
import { MIN_BLAME_SAMPLES } from './blame-step.js';

/** Cells that list a status and flags break onto a line each when the column is narrow. */
const LIST = ', ';
const listLines = (text: string) => text.split(LIST);
const longest = (texts: string[]) => Math.max(6, ...texts.map((text) => text.length));
const statusCell = (model: ModelSummary) => [model.status, ...model.actionFlags].join(LIST);
function timeCell(time: ModelSummary | null): string {
  if (!time) return '-';
  // Too short to model: its median, then `too short` (and no flags: there is no model to flag).
  const words = time.status === 'fit' ? [] : [time.status];
  return [`${formatValue(time.prediction)} ms`, ...words, ...shownFlags(time)].join(LIST);
}
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
    `ranked call paths at ${at(models.target)} (instructions: exact counts; time: the time model's prediction):`,
  );
  const ranked = models.ranked;
  lines.push(
    renderTable(
      ranked,
      [
        { header: 'rank', value: (r) => r.rank, align: 'right' },
        { header: 'call path', value: (r) => displayPath(r.callpath), shrink: pathTail, min: 20, max: 40 },
        { header: 'instructions', value: (r) => r.instructions.model, shrink: 'wrap', min: 20 },
        { header: 'predicted', value: (r) => formatValue(r.instructions.prediction), align: 'right' },
        { header: 'share', value: (r) => formatShare(r.shareAtTarget), align: 'right' },
        // A status or flag is never cut: a column keeps at least the longest one.
        {
          header: 'status',
          value: (r) => statusCell(r.instructions),
          shrink: listLines,
          min: longest(ranked.flatMap((r) => [r.instructions.status, ...r.instructions.actionFlags])),
        },
        {
          header: 'time',
          value: (r) => timeCell(r.time),
          shrink: listLines,
          min: longest(ranked.flatMap((r) => timeCell(r.time).split(LIST))),
        },
      ],
      layout,
    ),
    ...legend(ranked, layout.wide ? Infinity : (layout.width ?? Infinity)),
  );
  lines.push(
    '',
    models.scalabilityBugs.length === 0
      ? 'scalability bugs: none'
      : `scalability bugs: ${models.scalabilityBugs.map((b) => `${displayPath(b.callpath)} (${b.metric}, ${b.flag})`).join(', ')}`,
  );
  for (const warning of models.warnings) lines.push(`warning: ${warning}`);
  if (blame.report) {
    const { period } = blame.report;
    for (const point of blame.report.blamePoints) {
      const top = point.variables
        .slice(0, 5)
        .map((v) => `${v.name} ${v.percent.toFixed(1)}%`)
        .join(', ');
      const where = `blame at ${point.function} (${at(blame.point)}; ${point.samples} samples, one per ${period} instructions)`;
      lines.push(
        point.samples < MIN_BLAME_SAMPLES
          ? `${where}: too few samples to attribute (${MIN_BLAME_SAMPLES} needed): a larger base point`
          : `${where}: ${top}`,
      );
    }
  } else {
    lines.push(`blame: ${blame.missing}`);
  }
  if (overhead) {
    lines.push(
      `overhead (runtime ÷ none, ${overhead.points} point(s) × ${overhead.rounds} round(s)): ${overhead.modes.map((m) => `${m.mode} ${formatOverhead(m)}`).join(', ')}` +
        (overhead.rounds < 2 ? ' (one round: no spread to tell overhead from noise)' : ''),
    );
  } else {
    lines.push('overhead: turned off in the config');
  }
  lines.push('', `report: ${files.html} (and ${files.report}); ${report.seconds.total.toFixed(1)} s`);
  // Prose lines fit the width as the table does (a table or a wrapped legend entry is one element with line breaks).
  const width = layout.wide ? Infinity : (layout.width ?? Infinity);
  return lines.map((line) => (line.includes('\n') ? line : wrap(line, width, '  '))).join('\n');
}

/** What the status words and flags in the table mean: only those that occur. */
function legend(ranked: readonly RankedModel[], width: number): string[] {
  const { statuses, flags } = rankingLegend(ranked);
  const entry = ([name, text]: [string, string]) => wrap(`  ${name}: ${text}`, width, '    ');
  return ['status:', ...statuses.map(entry), ...(flags.length > 0 ? ['flags:', ...flags.map(entry)] : [])];
}
