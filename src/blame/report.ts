// Terminal tables for `taintlens blame` and `taintlens sample`, fitted to the terminal's width.
import { renderTable, type Column } from '../report/table.js';
import { displayPath, pathTail } from '../report/names.js';
import type { BlameReport, BlamedVariable } from './types.js';
import type { SampledProfile, SampledCallpath } from './sampled-profile.js';
import { treeFullWarning } from '../profile/tree-full.js';

export function blameTables(
  report: BlameReport & { droppedSamples?: number; contextsLost?: number; contextTreeBytes?: number; ranks?: number[] },
  width: number,
): string {
  const parts: string[] = [];
  const ranks = report.ranks
    ? `; ${report.ranks.length} ranks, their variables merged by name (${report.ranks.join(' + ')} samples)`
    : '';
  for (const point of report.blamePoints) {
    const found = point.automatic ? ' (found: blame stops in its variables)' : '';
    parts.push(
      `blame point ${point.function}${found}: ${point.samples.toLocaleString('en-US')} of ${report.totalSamples.toLocaleString('en-US')} samples (one per ~${report.period} instructions${ranks})`,
    );
    const columns: Column<BlamedVariable>[] = [
      { header: 'variable', value: (v) => v.name, shrink: 'end', shrinkOrder: 2, min: 12 },
      { header: 'kind', value: (v) => v.kind },
      { header: 'bytes', value: (v) => (v.bytes === null ? '-' : v.bytes), align: 'right' },
      {
        header: 'allocated at',
        value: (v) => (v.allocationSite ? displayPath(v.allocationSite) : '-'),
        shrink: pathTail,
        shrinkOrder: 1,
        dropOrder: 1,
      },
      { header: 'samples', value: (v) => v.samples.toFixed(Number.isInteger(v.samples) ? 0 : 1), align: 'right' },
      { header: 'blame', value: (v) => `${v.percent.toFixed(1)}%`, align: 'right' },
    ];
    // A struct's fields follow it as indented rows (`  .l2`), its own row holding their sum; so do
    // the parts of "other", then the callees whose own variables hold part of it.
    const sub = (v: BlamedVariable, name: string, part: { samples: number; percent: number }): BlamedVariable => ({
      name,
      kind: v.kind,
      bytes: null,
      allocationSite: null,
      samples: part.samples,
      percent: part.percent,
    });
    const rows = point.variables.flatMap((v) => [
      v,
      ...(v.parts ?? []).map((part) => sub(v, `  ${part.why}`, part)),
      ...(v.stopsIn ?? []).map((stop) => sub(v, `  held in ${stop.function}'s variables`, stop)),
      ...(v.fields ?? []).map((field) => sub(v, `  .${field.name}`, field)),
    ]);
    parts.push(rows.length ? renderTable(rows, columns, { width }) : '  (no samples reached this function)', '');
  }
  parts.push(...sampleLossWarnings(report));
  return parts.join('\n');
}

export function sampleTable(profile: SampledProfile, width: number, top: number | undefined): string {
  const rows = top === undefined ? profile.callpaths : profile.callpaths.slice(0, top);
  const columns: Column<SampledCallpath>[] = [
    { header: 'call path', value: (c) => displayPath(c.callpath), shrink: pathTail, min: 16 },
    { header: 'samples', value: (c) => c.samples },
    { header: 'sampled', value: (c) => `${c.sampledPercent.toFixed(1)}%`, align: 'right' },
    { header: 'exact', value: (c) => `${c.exactPercent.toFixed(1)}%`, align: 'right' },
  ];
  const lines = [
    `${profile.totalSamples.toLocaleString('en-US')} samples, one per ~${profile.period} instructions (${profile.totalInstructions.toLocaleString('en-US')} executed); exact shares from the loop profiler`,
    renderTable(rows, columns, { width }),
    sampledVsExact(profile),
  ];
  if (rows.length < profile.callpaths.length)
    lines.push(`(${profile.callpaths.length - rows.length} more call paths in --json)`);
  lines.push(...sampleLossWarnings(profile));
  return lines.join('\n');
}

/** The comparison line, with the difference that chance alone gives at this many samples. */
function sampledVsExact(profile: SampledProfile): string {
  if (profile.maxErrorPoints === null || profile.expectedErrorPoints === null)
    return `no samples (${profile.totalInstructions.toLocaleString('en-US')} instructions executed, one sample per ~${profile.period}): a smaller --period samples the run`;
  return `largest difference sampled vs exact: ${profile.maxErrorPoints.toFixed(2)} percentage points (chance alone: up to ±${profile.expectedErrorPoints.toFixed(2)} at 95% with ${profile.totalSamples.toLocaleString('en-US')} samples)`;
}

/** The loud line for samples the buffer could not keep even after growing (their call paths are missing). */
export function droppedSamplesWarning(dropped: number): string {
  return `warning: ${dropped.toLocaleString('en-US')} samples found the sample buffer full and were not kept: the shares above miss them; raise --period`;
}

/** Every loud line a sample or blame report needs: samples not kept, call paths lost to a full tree. */
export function sampleLossWarnings(report: {
  droppedSamples?: number;
  contextsLost?: number;
  contextTreeBytes?: number;
}): string[] {
  const warnings: string[] = [];
  if (report.droppedSamples) warnings.push(droppedSamplesWarning(report.droppedSamples));
  if (report.contextsLost) warnings.push(treeFullWarning(report.contextsLost, report.contextTreeBytes));
  return warnings;
}
