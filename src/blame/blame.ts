// Variable blame (issue #14; Rutar & Hollingsworth): run the module under the sampling pass, turn
// every sample into the variables its work went into, and sum them per blame point — the entry
// function by default (`main` for a WASI command), any function with `blamePoints`.
import { readWasmFile } from '../../instrument/module-io.js';
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import type { RunSettings } from '../runtime/run-settings.js';
import { NO_WASI_EXTRAS } from '../runtime/run.js';
import { runSampled, type Frame, type SampledRun, type Sample } from './sample-run.js';
import { ContainerTimeline, type HeapContainer } from './containers.js';
import { FunctionRelations } from '../../instrument/blame-relations.js';
import { attributionPlan, storeContainer, type AttributionPlan, type PlanStep, type Target } from './attribute.js';
import { observedCallees } from './observed-callees.js';
import { allocationSite, otherRef, variableAt, type TransferContext, type VariableRef } from './transfer.js';
import type { AttributionContext } from './attribute.js';
import type { BlamedVariable, BlamePoint, BlameReport } from './types.js';
import { fileError } from '../util/errors.js';
import { contextsLostOf } from './sampled-profile.js';
import { guestStreams, type GuestStreams } from '../runtime/guest-output.js';

export interface BlameOptions {
  /** The module's bytes when the caller has read them already (default: read from the path). */
  bytes?: Uint8Array;
  /** Export to call (default: run; a WASI command runs _start). */
  invoke?: string | null;
  args?: string[];
  /** WASI argv after the program name. */
  argv?: string[];
  timeoutMs?: number;
  wasi?: RunSettings['wasi'];
  /** Instructions between samples on average (default: the pass's, 49999). */
  period?: number;
  /** Function names to report blame at (default: the entry function). */
  blamePoints?: string[];
  instrument?: InstrumentOptions;
  /** Variables listed per blame point before the rest is folded into "other" (default 12). */
  top?: number;
  /** SPMD ranks (docs/spmd.md): every rank is sampled and blamed; variables merge by name. */
  ranks?: number;
}

/** Extra fields of the report beyond the shared contract (src/blame/types.ts). */
export interface BlameReportDetails extends GuestStreams {
  invoke: string | null;
  result: SampledRun['result'];
  /** Samples the buffer had no room for (not blamed). */
  droppedSamples: number;
  /** Allocations the log had no room for (their memory shows as static data). */
  droppedAllocations: number;
  /** Function entries that found the calling-context tree full (present only when some did): their samples sit under the wrong call paths. */
  contextsLost?: number;
  /** The tree's size in bytes (present with contextsLost). */
  contextTreeBytes?: number;
  /** Heap containers the run allocated. */
  containers: number;
  /** SPMD runs (--ranks): samples per rank; the tables merge the ranks' variables by name. */
  ranks?: number[];
}

export async function blameModule(
  modulePath: string,
  options: BlameOptions = {},
): Promise<BlameReport & BlameReportDetails> {
  const bytes = options.bytes ?? readWasmFile(modulePath);
  const run: RunSettings = {
    invoke: options.invoke ?? null,
    args: options.args ?? [],
    argv: options.argv ?? [],
    repeat: 1,
    timeoutMs: options.timeoutMs ?? 60_000,
    wasi: options.wasi ?? { ...NO_WASI_EXTRAS, clock: 'virtual' },
    ...(options.ranks !== undefined ? { ranks: options.ranks } : {}),
  };
  const sampled = await runSampled(modulePath, bytes, run, {
    ...(options.period !== undefined ? { period: options.period } : {}),
    ...(options.instrument ? { instrument: options.instrument } : {}),
  });
  return blameFromRun(modulePath, sampled, options);
}

export function blameFromRun(
  modulePath: string,
  sampled: SampledRun,
  options: Pick<BlameOptions, 'blamePoints' | 'top'> = {},
): BlameReport & BlameReportDetails {
  const { layout, sites } = sampled;
  const names = sites.functions.map((f) => f.name);
  // The entry function always, then the functions asked for.
  const points = [...new Set([defaultBlamePoint(sampled), ...(options.blamePoints ?? [])])];
  for (const point of points) {
    if (!names.includes(point) && !names.some((n) => shortName(n) === point))
      throw fileError(modulePath, `--blame-point: no function '${point}' in the module`, 2);
  }
  const relationsCache = new Map<number, FunctionRelations>();
  const relations = (fn: number) => {
    let r = relationsCache.get(fn);
    if (!r) relationsCache.set(fn, (r = new FunctionRelations(layout.functions[fn]!)));
    return r;
  };
  const allocatorName = (frame: { function: number } | undefined) =>
    frame ? shortName(names[frame.function] ?? '?') : '?';
  // SPMD: every rank's samples, each against its own memory's containers; variables merge by name.
  const runs = sampled.ranks ?? [sampled];
  const contexts = runs.map((run): BlameContext => ({
    layout,
    relations,
    containers: new ContainerTimeline(run.allocations, allocatorName, layout.stack?.top ?? null),
    calleesAt: observedCallees(layout, run, run.allocations),
    table: sites,
    staticVariables: sampled.staticVariables,
  }));
  const blameAt = (point: string): BlamePoint => {
    const rows = new Map<string, Row>();
    let total = 0;
    runs.forEach((run, rank) => {
      const context = contexts[rank]!;
      // Samples share their call path (one array per context-tree node) and, on it, their region's plan.
      const pointAt = new Map<readonly Frame[], number>();
      const plans = new Map<readonly Frame[], Map<number, RefPlan>>();
      run.forEachSample((sample) => {
        let at = pointAt.get(sample.path);
        if (at === undefined) pointAt.set(sample.path, (at = pointIndex(sample, point, names)));
        if (at < 0) return;
        total++;
        let byRegion = plans.get(sample.path);
        if (!byRegion) plans.set(sample.path, (byRegion = new Map()));
        let plan = byRegion.get(sample.region);
        if (!plan)
          byRegion.set(sample.region, (plan = refPlan(attributionPlan(sample, at, context), sample, at, context)));
        const refs = sampleRefs(plan, sample, at, context);
        for (const ref of refs) {
          let row = rows.get(ref.key);
          if (!row)
            rows.set(
              ref.key,
              (row = { ref, samples: 0, containers: new Map(), fields: new Map(), why: new Map(), stops: new Map() }),
            );
          else if (ref.container && !row.ref.container) row.ref = ref;
          row.samples += 1 / refs.length;
          if (ref.field) row.fields.set(ref.field, (row.fields.get(ref.field) ?? 0) + 1 / refs.length);
          if (ref.why) row.why.set(ref.why, (row.why.get(ref.why) ?? 0) + 1 / refs.length);
          if (ref.stopsIn !== undefined) {
            const name = names[ref.stopsIn] ?? `func${ref.stopsIn}`;
            row.stops.set(name, (row.stops.get(name) ?? 0) + 1 / refs.length);
          }
          if (ref.container) row.containers.set(`${rank}:${ref.container.id}`, ref.container);
        }
      });
    });
    return {
      function: point,
      samples: total,
      variables: tableRows([...rows.values()], total, options.top ?? 12, contexts[0]!),
    };
  };
  const blamePoints = points.map(blameAt);
  // Where a tenth or more of the entry function's blame stops in a callee's own variables, that
  // callee is a blame point of its own (§2.6: blame points are where blame maps no further up).
  const entry = blamePoints[0];
  const automatic = (entry?.variables.find((v) => v.kind === 'other')?.stopsIn ?? [])
    .filter((stop) => stop.percent >= AUTOMATIC_POINT_PERCENT && !points.includes(stop.function))
    .slice(0, MAX_AUTOMATIC_POINTS);
  for (const stop of automatic) blamePoints.push({ ...blameAt(stop.function), automatic: true });
  const sum = (value: (run: SampledRun) => number) => runs.reduce((n, run) => n + value(run), 0);
  return {
    schema: 'taintlens/blame@1',
    module: modulePath,
    period: layout.period,
    totalSamples: sum((r) => r.sampleCount),
    blamePoints,
    invoke: sampled.invoke,
    result: sampled.result,
    droppedSamples: sum((r) => r.dropped),
    droppedAllocations: sum((r) => r.allocationsDropped),
    ...contextsLostOf(
      sum((r) => r.contextsLost),
      layout.tree.bytes,
    ),
    containers: sum((r) => r.allocations.filter((a) => a.kind === 'alloc' || a.kind === 'grow').length),
    ...(sampled.ranks ? { ranks: sampled.ranks.map((r) => r.sampleCount) } : {}),
    ...guestStreams(sampled),
  };
}

/** What attribution and the transfer functions read: one per run (SPMD: per rank). */
type BlameContext = AttributionContext & TransferContext;

/** An attribution plan with its fixed targets already mapped to the blame point's variables. */
interface RefPlan {
  advances: boolean;
  steps: Array<{ refs: VariableRef[] } | { store: Extract<PlanStep, { kind: 'store' }>; fallback: VariableRef[] }>;
}

function refPlan(plan: AttributionPlan, sample: Sample, at: number, context: BlameContext): RefPlan {
  const refsOf = (targets: Target[]) => targets.map((t) => variableAt(t, sample, at, context));
  return {
    advances: plan.advances,
    steps: plan.steps.map((step) =>
      step.kind === 'store' ? { store: step, fallback: refsOf(step.fallback) } : { refs: refsOf(step.targets) },
    ),
  };
}

/** A sample's variables: the plan's, a recorded address's container where the sample has one. */
function sampleRefs(plan: RefPlan, sample: Sample, at: number, context: BlameContext): VariableRef[] {
  if (plan.advances) context.containers.advanceTo(sample.allocations);
  const refs: VariableRef[] = [];
  for (const step of plan.steps) {
    if ('refs' in step) refs.push(...step.refs);
    else {
      const container = storeContainer(step.store, sample, context);
      if (container) refs.push(variableAt(container, sample, at, context));
      else refs.push(...step.fallback);
    }
  }
  return refs.length > 0 ? refs : [otherRef('no sampled region')];
}

/** A callee holding this share of the entry function's blame (percent) becomes a blame point; at most this many. */
const AUTOMATIC_POINT_PERCENT = 10;
const MAX_AUTOMATIC_POINTS = 3;
/** Callees listed where the "other" row's blame stops. */
const STOPS_LISTED = 5;

interface Row {
  ref: VariableRef;
  samples: number;
  /** By rank and container id. */
  containers: Map<string, HeapContainer>;
  fields: Map<string, number>;
  /** For the "other" row: its samples by reason. */
  why: Map<string, number>;
  /** For the "other" row: its samples held by a callee's own variables, by that callee. */
  stops: Map<string, number>;
}

function tableRows(
  rows: Row[],
  total: number,
  top: number,
  context: Parameters<typeof allocationSite>[1],
): BlamedVariable[] {
  const percent = (n: number) => (total > 0 ? round((100 * n) / total) : 0);
  // Variables under 0.1% of the blame point's samples (stray fractions of split samples) count as other.
  const significant = (r: Row) => r.ref.kind !== 'other' && r.samples >= total / 1000;
  const named = rows.filter(significant).sort((a, b) => b.samples - a.samples || a.ref.name.localeCompare(b.ref.name));
  const shown = named.slice(0, top);
  // What "other" consists of: the reasons work had no variable, then the variables folded into it.
  const parts = new Map<string, number>();
  const add = (why: string, n: number) => n > 0 && parts.set(why, (parts.get(why) ?? 0) + n);
  for (const row of rows) if (row.ref.kind === 'other') for (const [why, n] of row.why) add(why, n);
  add(
    `variables under 0.1% each`,
    rows.filter((r) => r.ref.kind !== 'other' && !significant(r)).reduce((sum, r) => sum + r.samples, 0),
  );
  add(
    `variables beyond the top ${top}`,
    named.slice(top).reduce((sum, r) => sum + r.samples, 0),
  );
  const rest = [...parts.values()].reduce((sum, n) => sum + n, 0);
  const stops = new Map<string, number>();
  for (const row of rows) for (const [fn, n] of row.stops) stops.set(fn, (stops.get(fn) ?? 0) + n);
  const out: BlamedVariable[] = shown.map(({ ref, samples, containers, fields }) => {
    const list = [...containers.values()];
    const bytes = list.length ? list.reduce((sum, c) => sum + c.bytes, 0) : (ref.bytes ?? null);
    const sitesOf = [...new Set(list.map((c) => allocationSite(c, context)))];
    return {
      name: ref.name,
      kind: ref.kind,
      bytes,
      allocationSite: sitesOf.length ? sitesOf.join(', ') : null,
      samples: round(samples),
      percent: percent(samples),
      ...(fields.size > 0
        ? {
            fields: [...fields]
              .sort((a, b) => b[1] - a[1])
              .map(([name, n]) => ({ name, samples: round(n), percent: percent(n) })),
          }
        : {}),
    };
  });
  if (rest > 0)
    out.push({
      name: 'other',
      kind: 'other',
      bytes: null,
      allocationSite: null,
      samples: round(rest),
      percent: percent(rest),
      parts: [...parts]
        .sort((a, b) => b[1] - a[1])
        .map(([why, n]) => ({ why, samples: round(n), percent: percent(n) })),
      ...(stops.size > 0
        ? {
            stopsIn: [...stops]
              .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
              .slice(0, STOPS_LISTED)
              .map(([fn, n]) => ({ function: fn, samples: round(n), percent: percent(n) })),
          }
        : {}),
    });
  return out;
}

/** The outermost occurrence of the blame point on the sample's call path, -1 when absent. */
function pointIndex(sample: Sample, point: string, names: string[]): number {
  return sample.path.findIndex((f) => names[f.function] === point || shortName(names[f.function] ?? '') === point);
}

/** The invoked export; for a WASI command its `main` (the program's own entry), else `_start`. */
function defaultBlamePoint(sampled: SampledRun): string {
  const names = sampled.sites.functions.map((f) => f.name);
  if (sampled.invoke !== null) return sampled.invoke;
  for (const candidate of ['main', '__main_argc_argv', '__original_main', '_start'])
    if (names.includes(candidate)) return candidate;
  let first = '_start';
  sampled.forEachSample((sample) => {
    if (sample.path[0]) first = names[sample.path[0].function]!;
    return false;
  });
  return first;
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
