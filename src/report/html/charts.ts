// The report's plots: Vega-Lite specifications compiled and rendered to SVG here in Node (vega's
// headless View needs no canvas for SVG), so report.html carries finished SVG and no script.
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ParameterPlot } from '../../analyze/model-step.js';
import type { BlamePoint } from '../../blame/types.js';
import type { OverheadStep } from '../../analyze/overhead-step.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif';
const CONFIG = {
  font: FONT,
  background: 'white',
  view: { stroke: '#ddd' },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#eee' },
  title: { fontSize: 13, anchor: 'start' as const, fontWeight: 600 as const },
};

export async function toSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Every repetition (dots) against the model (line) and its value at the target (diamond), one panel per parameter. */
export function modelChartSpec(plots: readonly ParameterPlot[], metricTitle: string): TopLevelSpec {
  const positive = <T extends { y: number }>(rows: readonly T[]) => rows.filter((row) => row.y > 0);
  return {
    config: CONFIG,
    hconcat: plots.map((plot) => {
      const fixed = Object.entries(plot.fixed)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      const x = {
        field: 'x',
        type: 'quantitative' as const,
        title: plot.param,
        scale: { type: 'log' as const, nice: false },
      };
      const y = { field: 'y', type: 'quantitative' as const, title: metricTitle, scale: { type: 'log' as const } };
      return {
        title: { text: `along ${plot.param}`, subtitle: fixed ? `${fixed} held` : '' },
        width: 210,
        height: 160,
        layer: [
          {
            data: { values: positive(plot.model) },
            mark: { type: 'line' as const, color: '#4c78a8', strokeWidth: 2 },
            encoding: { x, y },
          },
          {
            data: { values: positive(plot.measurements) },
            mark: { type: 'point' as const, filled: true, size: 34, opacity: 0.6, color: '#f58518' },
            encoding: { x, y },
          },
          {
            data: { values: positive([plot.target]) },
            mark: { type: 'point' as const, shape: 'diamond', filled: true, size: 90, color: '#e45756' },
            encoding: { x, y },
          },
        ],
      };
    }),
  };
}

export function blameChartSpec(point: BlamePoint): TopLevelSpec {
  return {
    config: CONFIG,
    title: { text: `blame at ${point.function}`, subtitle: `${point.samples.toLocaleString('en-US')} samples` },
    width: 420,
    height: { step: 18 },
    data: { values: point.variables.map((v) => ({ name: v.name, kind: v.kind, percent: v.percent })) },
    mark: { type: 'bar', color: '#54a24b' },
    encoding: {
      y: { field: 'name', type: 'nominal', sort: null, title: null },
      x: { field: 'percent', type: 'quantitative', title: '% of the samples', scale: { domain: [0, 100] } },
    },
  };
}

export function overheadChartSpec(overhead: OverheadStep): TopLevelSpec {
  return {
    config: CONFIG,
    title: { text: 'runtime ÷ none', subtitle: `${overhead.points} point(s), ${overhead.rounds} alternating round(s)` },
    width: 360,
    height: { step: 26 },
    data: { values: overhead.modes.map((m) => ({ mode: m.mode, ratio: m.ratio })) },
    layer: [
      {
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          y: { field: 'mode', type: 'nominal', sort: null, title: null },
          x: { field: 'ratio', type: 'quantitative', title: 'runtime ÷ none' },
        },
      },
      {
        mark: { type: 'rule', color: '#888', strokeDash: [4, 3] },
        data: { values: [{ one: 1 }] },
        encoding: { x: { field: 'one', type: 'quantitative' } },
      },
    ],
  };
}
