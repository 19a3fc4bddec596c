// Transfer functions and container resolution (§2.2, §2.4): a sample's targets become variables of
// the blame point's frame. A callee's pointer parameter is mapped onto the caller's argument along
// the sampled call path; a heap container is owned by the blame point's variable that receives the
// allocation — directly, or from the callee on the allocation's call path, so the fields a
// constructor allocates roll up into the object it returns — or, for memory allocated further out,
// by the parameter it was passed down as.
import type { Frame, Sample } from './sample-run.js';
import type { Target } from './attribute.js';
import type { HeapContainer } from './containers.js';
import type { FunctionRelations } from '../../instrument/blame-relations.js';
import type { BlameVariableKind } from './types.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import type { CallSite, SiteTable } from '../../instrument/sites.js';
import type { SourceLocation } from '../../instrument/debug/locations.js';
import { staticVariableAt, type StaticVariable } from '../../instrument/debug/dwarf-variables.js';
import { ALLOCATING, assignedName, fieldName } from './source-names.js';
import { argumentLocals, pointerParams } from './pointer-params.js';

export interface VariableRef {
  key: string;
  /** The struct field the work went into, when the variable is a struct (rolled up). */
  field?: string;
  name: string;
  kind: BlameVariableKind;
  /** The heap container behind it (bytes, allocation site), if any. */
  container: HeapContainer | null;
  /** A named static variable's size (DWARF), when it has no container. */
  bytes?: number;
  /** For "other": why the work has no variable of the blame point (blame says what "other" consists of). */
  why?: string;
  /** For "other": the callee whose own variable (a local, its stack frame) holds the work: blame stops there. */
  stopsIn?: number;
}

export interface TransferContext {
  layout: SampleLayout;
  table: SiteTable;
  relations: (fn: number) => FunctionRelations;
  /** Named static variables (DWARF), sorted by address. */
  staticVariables?: readonly StaticVariable[];
}

/** Work with no variable of the blame point, and why (the reasons `blame` lists under "other"). */
export function otherRef(why: string, stopsIn?: number): VariableRef {
  return {
    key: 'other',
    name: 'other',
    kind: 'other',
    container: null,
    why,
    ...(stopsIn !== undefined ? { stopsIn } : {}),
  };
}

export function variableAt(target: Target, sample: Sample, point: number, context: TransferContext): VariableRef {
  const path = sample.path;
  switch (target.kind) {
    case 'other':
      return otherRef(target.why === 'control' ? 'control (branches, loop counters)' : target.why);
    case 'global':
      return { key: `global:${target.name}`, name: target.name, kind: 'global', container: null };
    case 'result':
      return target.frame === point
        ? { key: 'result', name: '(return value)', kind: 'local', container: null }
        : otherRef('a returned value whose call site is unknown');
    case 'var': {
      const lifted = liftLocal(path, target.frame, target.local, point, context, target.pointer === true);
      const fn = path[lifted.frame]!.function;
      // A pointer into the function's shadow-stack frame (`&state`): the work went into that frame.
      const onStack = context.layout.functions[fn]!.stackLocals.includes(lifted.local);
      if (lifted.frame > point) return otherRef(onStack ? "a callee's stack frame" : "a callee's local", fn);
      return onStack ? stackRef(point, fn, context) : localRef(fn, lifted.local, context, null);
    }
    case 'container': {
      const c = target.container;
      if (c.kind === 'static') {
        const named = staticVariableAt(context.staticVariables ?? [], c.address);
        if (named)
          return {
            key: `static:${named.name}@${named.address}`,
            name: named.name,
            kind: 'static',
            container: null,
            ...(named.bytes > 0 ? { bytes: named.bytes } : {}),
          };
        const base = target.staticBase;
        return {
          key: `static:${base ?? 'data'}`,
          name: base === null ? 'static data' : `static data at 0x${base.toString(16)}`,
          kind: 'static',
          container: null,
        };
      }
      if (c.kind === 'stack') {
        const owner = target.base === null ? null : stackOwner(path, target.frame, target.base, context);
        if (owner !== null && owner > point) return otherRef("a callee's stack frame", path[owner]!.function);
        return stackRef(owner ?? point, path[owner ?? point]!.function, context);
      }
      return heapOwner(c, path, point, context);
    }
  }
}

function stackRef(frame: number, fn: number, context: TransferContext): VariableRef {
  return {
    key: `stack:${frame}`,
    name: `stack frame of ${context.table.functions[fn]?.name ?? `func${fn}`}`,
    kind: 'stack',
    container: null,
  };
}

/**
 * A callee's local, carried up to the blame point's frame through the parameters it was passed as;
 * where that stops (a local that is no parameter), the frame holding it. A pointer the work was
 * stored through is first traced back to the parameter it was computed from (pointer-params.ts).
 */
function liftLocal(
  path: Frame[],
  frame: number,
  local: number,
  point: number,
  context: TransferContext,
  pointer: boolean,
): { frame: number; local: number } {
  let f = frame;
  let l = local;
  while (f > point) {
    const fn = context.layout.functions[path[f]!.function]!;
    const call = path[f]!.call;
    if (pointer && l >= fn.params && !fn.stackLocals.includes(l)) l = pointerParams(fn, l)[0] ?? l;
    if (l >= fn.params || call === null) break;
    const sources = argumentLocals(context.layout.functions[path[f - 1]!.function]!, call, l);
    if (sources.length === 0) break;
    l = sources[0]!;
    f--;
  }
  return { frame: f, local: l };
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
    const sources = argumentLocals(context.layout.functions[path[f - 1]!.function]!, call, l);
    if (sources.length === 0) return null;
    l = sources[0]!;
    f--;
  }
}

const heapCache = new WeakMap<TransferContext, Map<string, VariableRef>>();

function heapOwner(c: HeapContainer, path: Frame[], point: number, context: TransferContext): VariableRef {
  let cache = heapCache.get(context);
  if (!cache) heapCache.set(context, (cache = new Map()));
  // A context-tree node stands for its whole call path.
  const key = `${c.id}:${path[point]?.node ?? -1}`;
  let ref = cache.get(key);
  if (!ref) cache.set(key, (ref = resolveHeapOwner(c, path, point, context)));
  return ref;
}

function resolveHeapOwner(c: HeapContainer, path: Frame[], point: number, context: TransferContext): VariableRef {
  const fallback = containerRef(c, context);
  let common = 0;
  while (common < c.path.length && common < path.length && c.path[common]!.node === path[common]!.node) common++;
  if (common === 0) return fallback;
  const owner = common > point ? point : common - 1;
  const fn = path[owner]!.function;
  const call = c.path.length > owner + 1 ? c.path[owner + 1]!.call : null;
  const source = call !== null ? `c${call}` : growSource(c, fn, context);
  if (source === null) return fallback;
  const relations = context.relations(fn);
  const receivers = relations.receivers(source);
  let local = receivers.locals[0];
  let field: string | null = null;
  let name: string | null = null;
  if (local !== undefined) {
    name =
      variableName(fn, local, call, context) ??
      (c.path.length > owner + 2 && call !== null ? callName(fn, call, context) : null);
    // A callee that allocates and stores into fields (`panel->l2 = calloc(...)`): name the field.
    if (c.path.length > owner + 2) field = fieldOf(allocationCall(c, context));
  } else {
    // A field of an object this function holds: the result of an allocation made right here, or of
    // a call (a constructor) stored through a heap pointer — not any value a call returns into a
    // stack slot (printf's arguments).
    const direct = c.path.length <= owner + (c.allocator === 'memory.grow' ? 1 : 2);
    const stack = context.layout.functions[fn]!.stackLocals;
    const store = receivers.stores.find((st) => st.base !== null && (direct || !stack.includes(st.base)));
    if (!store) return fallback;
    local = store.base!;
    // The container is a field of the object `local` points to (`this.e = new StaticArray(...)`).
    field = fieldOf(call !== null ? callLocation(fn, call, context) : null) ?? `+${store.offset}`;
    name =
      context.layout.functions[fn]!.localNames[local] ||
      allocatedName(fn, local, context) ||
      `object in local ${local}`;
  }
  // Received from the allocation here: a heap variable even when the compiler reused a parameter's local for it.
  if (common > point) return { ...localRef(fn, local, context, c, name), kind: 'heap', ...(field ? { field } : {}) };
  // Allocated further out: follow the receiving variable down the sampled path as an argument.
  for (let f = owner; f < point; f++) {
    const next = path[f + 1]!.call;
    if (next === null) return fallback;
    const args = context.relations(path[f]!.function).argumentsOf(local, next);
    if (args.length === 0) return fallback;
    local = args[0]!;
  }
  return {
    ...localRef(
      path[point]!.function,
      local,
      context,
      c,
      context.layout.functions[path[point]!.function]!.localNames[local] || name,
    ),
    ...(field ? { field } : {}),
  };
}

/** A local's name: the name section's, else what the source line of the call filling it assigns to. */
function variableName(fn: number, local: number, call: number | null, context: TransferContext): string | null {
  return (
    context.layout.functions[fn]!.localNames[local] ||
    (call !== null ? assignedName(callLocation(fn, call, context)) : null)
  );
}

const allocatedNames = new WeakMap<TransferContext, Map<string, string | null>>();

/** The name of the object a local holds: what the source line of an allocation filling it assigns to. */
function allocatedName(fn: number, local: number, context: TransferContext): string | null {
  let cache = allocatedNames.get(context);
  if (!cache) allocatedNames.set(context, (cache = new Map()));
  const key = `${fn}:${local}`;
  if (cache.has(key)) return cache.get(key)!;
  const facts = context.layout.functions[fn]!;
  const makers = facts.facts
    .filter((f) => f.target.kind === 'local' && f.target.local === local)
    .flatMap((f) => f.sources.filter((x) => x.startsWith('c')).map((x) => Number(x.slice(1))))
    .filter((m) => context.layout.allocators.some((a) => a.function === facts.callees[m]));
  const name = makers.map((m) => allocatingName(callLocation(fn, m, context))).find((n) => n) ?? null;
  cache.set(key, name);
  return name;
}

/** The allocating line's variable; AssemblyScript's source maps put an inlined constructor's allocation a line early. */
function allocatingName(location: SourceLocation | null): string | null {
  if (!location) return null;
  return (
    assignedName(location, ALLOCATING) ?? assignedName({ file: location.file, line: location.line + 1 }, ALLOCATING)
  );
}

function fieldOf(location: SourceLocation | null): string | null {
  const name = assignedName(location);
  return name && /\.|->/.test(name) ? fieldName(name) : null;
}

function callSiteById(context: TransferContext): Map<string, CallSite> {
  let map = callSites.get(context.table);
  if (!map) callSites.set(context.table, (map = new Map(context.table.calls.map((c) => [c.id, c]))));
  return map;
}
const callSites = new WeakMap<SiteTable, Map<string, CallSite>>();

function callLocation(fn: number, call: number, context: TransferContext): SourceLocation | null {
  const id = context.table.functions[fn]?.calls[call];
  return (id ? callSiteById(context).get(id)?.location : null) ?? null;
}

/** Where the allocator was called (the last call on the allocation path). */
function allocationCall(c: HeapContainer, context: TransferContext): SourceLocation | null {
  const last = c.path.at(-1);
  const caller = c.allocator === 'memory.grow' ? last : c.path.at(-2);
  if (c.allocator === 'memory.grow' || !last || last.call === null || !caller) return null;
  return callLocation(caller.function, last.call, context);
}

function growSource(c: HeapContainer, fn: number, context: TransferContext): string | null {
  if (c.growSite === null) return null;
  return context.layout.functions[fn]!.grows.includes(c.growSite) ? `g${c.growSite}` : null;
}

/** "make_panel() result at blame_kernels.c:127": a variable known by the call that fills it. */
function callName(fn: number, call: number, context: TransferContext): string {
  const id = context.table.functions[fn]?.calls[call];
  const site = id ? callSiteById(context).get(id) : undefined;
  const callee = shortName(site?.target ?? '?');
  return `${callee}() result${site?.location ? ` at ${site.location.file.split('/').pop()}:${site.location.line}` : site ? ` (${site.id})` : ''}`;
}

function localRef(
  fn: number,
  local: number,
  context: TransferContext,
  container: HeapContainer | null,
  viaCall: string | null = null,
): VariableRef {
  const facts = context.layout.functions[fn]!;
  const named = facts.localNames[local] || viaCall || allocatedName(fn, local, context);
  const kind: BlameVariableKind = container ? 'heap' : local < facts.params ? 'parameter' : 'local';
  const name =
    named || (container ? containerName(container, context) : `${local < facts.params ? 'param' : 'local'} ${local}`);
  return { key: `var:${fn}:${local}`, name, kind: container && local < facts.params ? 'parameter' : kind, container };
}

function containerRef(c: HeapContainer, context: TransferContext): VariableRef {
  return { key: `heap:${allocationSite(c, context)}`, name: containerName(c, context), kind: 'heap', container: c };
}

/** "malloc at blame_kernels.c:21", else "malloc in fill_then_produce". */
function containerName(c: HeapContainer, context: TransferContext): string {
  const allocator = c.allocator.slice(c.allocator.lastIndexOf('/') + 1);
  const last = c.path.at(-1);
  if (c.allocator === 'memory.grow')
    return `memory.grow in ${shortName(context.table.functions[last?.function ?? -1]?.name ?? '?')}`;
  const caller = c.allocator === 'memory.grow' ? last : c.path.at(-2);
  const site =
    last?.call !== null && last?.call !== undefined && caller
      ? context.table.functions[caller.function]?.calls[last.call]
      : undefined;
  const call = site ? callSiteById(context).get(site) : undefined;
  const assigned = assignedName(call?.location);
  if (assigned) return assigned;
  if (call?.location) return `${allocator} at ${call.location.file.split('/').pop()}:${call.location.line}`;
  const where = caller ? (context.table.functions[caller.function]?.name ?? '?') : '?';
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
