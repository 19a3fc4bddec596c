// Transfer functions and container resolution (§2.2, §2.4): a sample's targets become variables of
// the blame point's frame. A callee's pointer parameter is mapped onto the caller's argument along
// the sampled call path; a heap container is owned by the blame point's variable that receives the
// allocation — directly, or from the callee on the allocation's call path, so the fields a
// constructor allocates roll up into the object it returns — or, for memory allocated further out,
// by the parameter it was passed down as.
import type { Frame, Sample } from './sample-run.js';
import type { Target } from './attribute.js';
import type { HeapContainer } from './containers.js';
import type { FunctionRelations } from './relations.js';
import type { BlameVariableKind } from './types.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import type { SiteTable } from '../../instrument/sites.js';

export interface VariableRef {
  key: string;
  name: string;
  kind: BlameVariableKind;
  /** The heap container behind it (bytes, allocation site), if any. */
  container: HeapContainer | null;
}

export interface TransferContext {
  layout: SampleLayout;
  table: SiteTable;
  relations: (fn: number) => FunctionRelations;
}

const OTHER: VariableRef = { key: 'other', name: 'other', kind: 'other', container: null };

export function variableAt(target: Target, sample: Sample, point: number, context: TransferContext): VariableRef {
  const path = sample.path;
  switch (target.kind) {
    case 'other':
      return OTHER;
    case 'global':
      return { key: `global:${target.name}`, name: target.name, kind: 'global', container: null };
    case 'result':
      return target.frame === point ? { key: 'result', name: '(return value)', kind: 'local', container: null } : OTHER;
    case 'var': {
      const lifted = liftLocal(path, target.frame, target.local, point, context);
      return lifted === null ? OTHER : localRef(path[point]!.function, lifted, context, null);
    }
    case 'container': {
      const c = target.container;
      if (c.kind === 'static') {
        const base = target.staticBase;
        return { key: `static:${base ?? 'data'}`, name: base === null ? 'static data' : `static data at 0x${base.toString(16)}`, kind: 'static', container: null };
      }
      if (c.kind === 'stack') {
        const owner = target.base === null ? null : stackOwner(path, target.frame, target.base, context);
        if (owner !== null && owner > point) return OTHER;
        const fn = path[owner ?? point]!.function;
        return { key: `stack:${owner ?? point}`, name: `stack frame of ${context.table.functions[fn]?.name ?? `func${fn}`}`, kind: 'stack', container: null };
      }
      return heapOwner(c, path, point, context);
    }
  }
}

/** A callee's local, carried up to the blame point's frame through the parameters it was passed as. */
function liftLocal(path: Frame[], frame: number, local: number, point: number, context: TransferContext): number | null {
  let f = frame;
  let l = local;
  while (f > point) {
    const fn = context.layout.functions[path[f]!.function]!;
    const call = path[f]!.call;
    if (l >= fn.params || call === null) return null;
    const sources = context.relations(path[f - 1]!.function).argumentSources(call, l);
    if (sources.length === 0) return null;
    l = sources[0]!;
    f--;
  }
  return l;
}

/** The frame whose shadow-stack memory a base local points into (following pointer parameters out). */
function stackOwner(path: Frame[], frame: number, base: number, context: TransferContext): number | null {
  let f = frame;
  let l = base;
  for (;;) {
    const fn = context.layout.functions[path[f]!.function]!;
    if (fn.stackLocals.includes(l)) return f;
    const call = path[f]!.call;
    if (l >= fn.params || call === null || f === 0) return null;
    const sources = context.relations(path[f - 1]!.function).argumentSources(call, l);
    if (sources.length === 0) return null;
    l = sources[0]!;
    f--;
  }
}

function heapOwner(c: HeapContainer, path: Frame[], point: number, context: TransferContext): VariableRef {
  const fallback = containerRef(c, context);
  let common = 0;
  while (common < c.path.length && common < path.length && c.path[common]!.node === path[common]!.node) common++;
  if (common === 0) return fallback;
  if (common > point) {
    // Allocated in the blame point's invocation or below it: who receives it there?
    const fn = path[point]!.function;
    const source = c.path.length > point + 1 ? `c${c.path[point + 1]!.call}` : growSource(c, fn, context);
    if (source === null) return fallback;
    const local = context.relations(fn).receivers(source).locals[0];
    if (local === undefined) return fallback;
    const through = c.path.length > point + 2 ? c.path[point + 1]! : null;
    return localRef(fn, local, context, c, through ? callName(fn, through.call!, context) : null);
  }
  // Allocated further out: follow the receiving variable down the sampled path as an argument.
  const a = common - 1;
  const fnA = path[a]!.function;
  const source = c.path.length > a + 1 ? `c${c.path[a + 1]!.call}` : growSource(c, fnA, context);
  if (source === null) return fallback;
  let local = context.relations(fnA).receivers(source).locals[0];
  if (local === undefined) return fallback;
  for (let f = a; f < point; f++) {
    const call = path[f + 1]!.call;
    if (call === null) return fallback;
    const args = context.relations(path[f]!.function).argumentsOf(local, call);
    if (args.length === 0) return fallback;
    local = args[0]!;
  }
  return localRef(path[point]!.function, local, context, c);
}

function growSource(c: HeapContainer, fn: number, context: TransferContext): string | null {
  if (c.growSite === null) return null;
  return context.layout.functions[fn]!.grows.includes(c.growSite) ? `g${c.growSite}` : null;
}

/** "make_panel() result at blame_kernels.c:127": a variable known by the call that fills it. */
function callName(fn: number, call: number, context: TransferContext): string {
  const id = context.table.functions[fn]?.calls[call];
  const site = id ? context.table.calls.find((s) => s.id === id) : undefined;
  const callee = shortName(site?.target ?? '?');
  return `${callee}() result${site?.location ? ` at ${site.location.file.split('/').pop()}:${site.location.line}` : site ? ` (${site.id})` : ''}`;
}

function localRef(fn: number, local: number, context: TransferContext, container: HeapContainer | null, viaCall: string | null = null): VariableRef {
  const facts = context.layout.functions[fn]!;
  const named = facts.localNames[local] || viaCall;
  const kind: BlameVariableKind = container ? 'heap' : local < facts.params ? 'parameter' : 'local';
  const name = named || (container ? containerName(container, context) : `${local < facts.params ? 'param' : 'local'} ${local}`);
  return { key: `var:${fn}:${local}`, name, kind: container && local < facts.params ? 'parameter' : kind, container };
}

function containerRef(c: HeapContainer, context: TransferContext): VariableRef {
  return { key: `heap:${allocationSite(c, context)}`, name: containerName(c, context), kind: 'heap', container: c };
}

/** "malloc at blame_kernels.c:21", else "malloc in fill_then_produce". */
function containerName(c: HeapContainer, context: TransferContext): string {
  const allocator = c.allocator.slice(c.allocator.lastIndexOf('/') + 1);
  const last = c.path.at(-1);
  const caller = c.allocator === 'memory.grow' ? last : c.path.at(-2);
  const site = last?.call !== null && last?.call !== undefined && caller ? context.table.functions[caller.function]?.calls[last.call] : undefined;
  const call = site ? context.table.calls.find((s) => s.id === site) : undefined;
  if (call?.location) return `${allocator} at ${call.location.file.split('/').pop()}:${call.location.line}`;
  const where = caller ? context.table.functions[caller.function]?.name ?? '?' : '?';
  return `${allocator} in ${where.slice(where.lastIndexOf('/') + 1)}${site ? ` (${site})` : ''}`;
}

export function allocationSite(c: HeapContainer, context: TransferContext): string {
  const names = c.path.map((f) => shortName(context.table.functions[f.function]?.name ?? `func${f.function}`));
  if (c.allocator === 'memory.grow') names.push('memory.grow');
  return names.join('->');
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}
