// report.html: one self-contained page (no script, no network) from the analysis report alone.
// Plots are SVG rendered by charts.ts; tables carry the same numbers as report.json.
import type { AnalysisReport } from '../../analyze/report.js';
import { rankingLegend, shownFlags, type ModelSummary, type RankedModel } from '../../analyze/model-step.js';
import { displayName, displayPath } from '../names.js';
import { blameChartSpec, modelChartSpec, overheadChartSpec, toSvg } from './charts.js';
import { escapeHtml as esc, formatCount, formatRatio, formatRoundRange, formatShare, formatValue } from './format.js';
import { STYLE } from './style.js';

type Cell = string | { html: string; cls?: string };

function table(id: string, headers: string[], rows: Cell[][], numeric: number[] = []): string {
  const head = headers.map((h, i) => `<th${numeric.includes(i) ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row
          .map((cell, i) => {
            const cls = [numeric.includes(i) ? 'num' : '', typeof cell === 'string' ? '' : (cell.cls ?? '')]
              .filter(Boolean)
              .join(' ');
            return `<td${cls ? ` class="${cls}"` : ''}>${typeof cell === 'string' ? esc(cell) : cell.html}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const code = (text: string) => ({ html: `<code>${esc(text)}</code>` });
const at = (point: Record<string, number>) =>
  Object.entries(point)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

function section(id: string, title: string, body: string): string {
  return `<section id="${id}">\n<h2>${esc(title)}</h2>\n${body}\n</section>`;
}

function flagLegend(ranked: readonly RankedModel[]): string {
  const { statuses, flags } = rankingLegend(ranked);
  return `<dl class="legend">${[...statuses, ...flags].map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

/** The status in words, then the flags that change what to do, each kept on one line. */
const statusList = (model: ModelSummary) => ({
  html: [
    `<span class="status">${esc(model.status)}</span>`,
    ...shownFlags(model).map((flag) => `<span class="flag">${esc(flag)}</span>`),
  ].join(' '),
});

function rankingSection(report: AnalysisReport): string {
  const { models } = report;
  const rows = models.ranked.map((r) => [
    String(r.rank),
    { html: `<span title="${esc(r.callpath)}">${esc(displayPath(r.callpath))}</span>` },
    code(r.instructions.model),
    formatValue(r.instructions.prediction),
    formatShare(r.shareAtTarget),
    statusList(r.instructions),
    code(r.time ? (r.time.status === 'too short' ? 'too short to model' : r.time.model) : '-'),
    r.time ? formatValue(r.time.prediction) : '-',
    r.time ? statusList(r.time) : '-',
  ]);
  const bugs =
    models.scalabilityBugs.length === 0
      ? '<p>No scalability bug: no call path grows faster than the main work.</p>'
      : `<p class="warn">Scalability bugs: ${models.scalabilityBugs.map((b) => `<code>${esc(displayPath(b.callpath))}</code> (${esc(b.metric)}, ${esc(b.flag)})`).join(', ')}</p>`;
  const warnings = models.warnings.map((w) => `<p class="warn">warning: ${esc(w)}</p>`).join('');
  return section(
    'ranking',
    `Ranked call paths at ${at(models.target)}`,
    `<p>Instruction counts (exact) and time (ms), modeled with the taint prior and extrapolated to the target; ranked by predicted instructions.</p>
${table('ranking-table', ['rank', 'call path', 'instructions model', 'predicted', 'share', 'status', 'time model (ms)', 'predicted ms', 'time status'], rows, [0, 3, 4, 7])}
${bugs}${warnings}${flagLegend(models.ranked)}`,
  );
}

async function modelPlots(report: AnalysisReport): Promise<string> {
  const parts: string[] = [];
  for (const [callpath, plots] of Object.entries(report.models.plots)) {
    const ranked = report.models.ranked.find((r) => r.callpath === callpath)!;
    const figures: string[] = [];
    for (const [metric, title] of [
      ['instructions', 'instructions'],
      ['time', 'time (ms)'],
    ] as const) {
      const chosen = plots.filter((p) => p.metric === metric);
      if (chosen.length === 0) continue;
      const model = metric === 'instructions' ? ranked.instructions.model : (ranked.time?.model ?? '');
      figures.push(`<figure class="plot" data-callpath="${esc(callpath)}" data-metric="${metric}">${await toSvg(modelChartSpec(chosen, title))}
<figcaption>${esc(title)}: <code>${esc(model)}</code></figcaption></figure>`);
    }
    parts.push(
      `<article class="callpath"><h3>#${ranked.rank} ${esc(displayPath(callpath))}</h3>\n<div class="figures">${figures.join('\n')}</div></article>`,
    );
  }
  return section(
    'models',
    'Measurements against models',
    `<p>Per ranked call path and parameter: dots, every repetition measured along that parameter (the others held as the panel says); line, the model; diamond, its value at the target value of the parameter. Log-log axes.</p>\n${parts.join('\n')}`,
  );
}

function loopSection(report: AnalysisReport): string {
  const rows = report.taint.loopTree.map((loop) => [
    { html: `<span class="tree" style="padding-left:${(loop.depth - 1) * 1.2}em">${esc(loop.loop)}</span>` },
    displayName(loop.function),
    loop.source ?? '-',
    loop.params.join(', ') || '-',
    formatCount(loop.iterations),
    formatCount(loop.instructions),
    formatShare(loop.share),
  ]);
  return section(
    'loops',
    'Loop tree with parameter dependencies',
    `<p>Loops per calling context at the base point (${esc(at(report.base))}), nested across calls; parameters: those of the loop's exit conditions (taint).</p>
${table('loop-tree', ['loop', 'function', 'source', 'parameters', 'iterations', 'instructions', 'share'], rows, [4, 5, 6])}`,
  );
}

function coverageSection(report: AnalysisReport): string {
  const { taint } = report;
  const rows = taint.coverage.map((row) => [
    row.name,
    formatShare(row.share),
    String(row.loopIds.length),
    String(row.functions.length),
    String(row.branches.length),
    { html: row.chosen ? '<strong>modeled</strong>' : '-' },
    row.why,
  ]);
  const functions = taint.relevantFunctions.map((f) => [displayName(f.name), code(f.dependency), f.source ?? '-']);
  return section(
    'coverage',
    'Parameter coverage',
    `<p>Work a parameter reaches: instructions inside the loops it drives at the base point. Prunable (drive no loop): ${taint.prunable.length ? taint.prunable.map((p) => `<code>${esc(p)}</code>`).join(', ') : 'none'}.</p>
${table('coverage-table', ['parameter', 'work reached', 'loops', 'functions', 'branches', 'model', 'why'], rows, [1, 2, 3, 4])}
<h3>Relevant functions</h3>
${table('functions-table', ['function', 'dependency', 'source'], functions)}`,
  );
}

async function blameSection(report: AnalysisReport): Promise<string> {
  const { blame } = report;
  if (!blame.report)
    return section(
      'blame',
      'Blame',
      `<p class="missing">No blame table: ${esc(blame.missing ?? 'not available')}.</p>`,
    );
  const parts: string[] = [
    `<p>Where the sampled work went, by program variable, at ${esc(at(blame.point))}; a sample every ${formatCount(blame.report.period)} instructions, ${formatCount(blame.report.totalSamples)} in all.</p>`,
  ];
  for (const [i, point] of blame.report.blamePoints.entries()) {
    parts.push(
      `<figure class="plot" data-blame-point="${esc(point.function)}">${await toSvg(blameChartSpec(point))}</figure>`,
    );
    parts.push(
      table(
        `blame-table-${i}`,
        ['variable', 'kind', 'bytes', 'allocated at', 'samples', 'share'],
        point.variables.map((v) => [
          v.name,
          v.kind,
          v.bytes === null ? '-' : formatCount(v.bytes),
          v.allocationSite ?? '-',
          formatCount(v.samples),
          `${v.percent.toFixed(1)}%`,
        ]),
        [2, 4, 5],
      ),
    );
  }
  return section('blame', 'Blame', parts.join('\n'));
}

async function overheadSection(report: AnalysisReport): Promise<string> {
  const { overhead } = report;
  if (!overhead)
    return section(
      'overhead',
      'Measurement overhead',
      '<p class="missing">No overhead comparison: turned off in the config ("overhead": false).</p>',
    );
  const rows = overhead.modes.map((m) => [
    m.mode,
    String(m.instrumentedFunctions),
    formatValue(m.medianMs),
    formatRatio(m.ratio),
    formatRoundRange(m) ?? '-',
  ]);
  const changed = overhead.changedModels
    .map((c) => `<li>${esc(c.mode)}: <code>${esc(displayPath(c.callpath))}</code> ${esc(c.changed)}</li>`)
    .join('');
  return section(
    'overhead',
    'Measurement overhead',
    `<figure class="plot">${await toSvg(overheadChartSpec(overhead))}</figure>
${table('overhead-table', ['mode', 'functions', 'median ms', 'runtime ÷ none', 'range over rounds'], rows, [1, 2, 3])}
<p>full ÷ selective: ${overhead.fullOverSelective === null ? '-' : formatRatio(overhead.fullOverSelective)}; none ÷ original module (relocation alone): ${formatRatio(overhead.relocationRatio)}.</p>
${changed ? `<p>Time models that instrumentation changed (against the instruction counts):</p><ul>${changed}</ul>` : ''}`,
  );
}

function header(report: AnalysisReport): string {
  const e = report.experiment;
  const parameters = e.parameters.map((p) => `${p.name} ∈ {${p.values.join(', ')}}`).join('; ');
  return `<header><h1>Taintlens analysis of <code>${esc(report.module)}</code></h1>
<p id="facts">config <code>${esc(report.config)}</code> · ${esc(report.created)} · base point ${esc(at(report.base))}</p>
<p>Modeled: ${esc(parameters)} · target ${esc(at(report.models.target))} · design: ${esc(e.design.reason)} (${e.design.points} of ${e.design.gridPoints} points) ·
mode ${esc(e.mode)}: ${e.instrumentedFunctions} function(s) instrumented · ${report.seconds.total.toFixed(1)} s in all</p>
<nav><a href="#ranking">ranking</a> <a href="#models">models</a> <a href="#loops">loop tree</a> <a href="#coverage">coverage</a> <a href="#blame">blame</a> <a href="#overhead">overhead</a></nav></header>`;
}

export async function renderHtmlReport(report: AnalysisReport): Promise<string> {
  const sections = [
    header(report),
    rankingSection(report),
    await modelPlots(report),
    loopSection(report),
    coverageSection(report),
    await blameSection(report),
    await overheadSection(report),
  ];
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Taintlens: ${esc(report.module)}</title>
<style>${STYLE}</style></head>
<body>
${sections.join('\n')}
<footer>taintlens ${esc(report.schema)} · plots: Vega-Lite rendered to SVG</footer>
</body></html>
`;
}
