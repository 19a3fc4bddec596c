// Instance generation (§2.5): what one sample's work went into, before it is mapped to a blame
// point's variables. The sampled region's sinks come from the static relations; a store's recorded
// address picks its mem-container; a value returned bubbles to the caller along the sampled call
// path (the transfer function of the call site), down to the blame point's frame at most. A value
// passed to a callee whose result is unused goes where the callee puts it: the objects its pointer
// parameters point to, or globals (a transfer function computed from the callee's own relations);
// an indirect call's callees are those the run was seen entering from that call site.
import type { Frame, Sample } from './sample-run.js';
import type { Container, ContainerTimeline } from './containers.js';
import { baseLoad, baseLocal, type AddressAst } from '../../instrument/flow-facts.js';
import type { FunctionRelations, Sink } from '../../instrument/blame-relations.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import type { CalleesAt } from './observed-callees.js';
import { argumentLocals, pointerParams } from './pointer-params.js';

export type Target =
  | { kind: 'container'; container: Container; frame: number; base: number | null; staticBase: number | null }
  /** `pointer`: the local holds a pointer the work was stored through (its provenance may lead to a parameter). */
  | { kind: 'var'; frame: number; local: number; pointer?: true }
  | { kind: 'global'; name: string }
  | { kind: 'result'; frame: number }
  | { kind: 'other'; why: 'control' | 'callee argument' | 'unknown address' };

export interface AttributionContext {
  layout: SampleLayout;
  relations: (fn: number) => FunctionRelations;
  containers: ContainerTimeline;
  /** The callees of a call site: the static one, or those the run was seen entering (observed-callees.ts). */
  calleesAt: CalleesAt;
}

const MAX_BUBBLE = 64;

/**
 * What a sample's work goes into, for a blame point at path index `point`, before the sample's own
 * store addresses are looked at: the same for every sample of one region on one call path, so the
 * blame analysis works it out once per (call path, region) and not once per sample (yosys takes
 * two million samples, most of them in a few thousand such pairs).
 */
export interface AttributionPlan {
  /** Whether the allocation timeline is replayed up to the sample (the region has sinks of its own). */
  advances: boolean;
  steps: PlanStep[];
}

export type PlanStep =
  | { kind: 'targets'; targets: Target[] }
  /** A store whose address the sample recorded in `slot`: its container, or `fallback` when the address is too low to be real. */
  | { kind: 'store'; slot: number; frame: number; base: number | null; staticBase: number | null; fallback: Target[] };

/** The targets of a sample's work, for a blame point at path index `point` (results stop there). */
export function attributeSample(sample: Sample, point: number, context: AttributionContext): Target[] {
  return planTargets(attributionPlan(sample, point, context), sample, context);
}

/** The plan of a sample's region on its call path (only `region` and `path` of the sample are read). */
export function attributionPlan(
  sample: Pick<Sample, 'region' | 'path'>,
  point: number,
  context: AttributionContext,
): AttributionPlan {
  const path = sample.path;
  const region = context.layout.regions[sample.region];
  const frame = path.length - 1;
  if (!region || frame < point) return { advances: false, steps: [] };
  const fixed = (targets: Target[]): AttributionPlan => ({ advances: false, steps: [{ kind: 'targets', targets }] });
  // Work inside an allocator (or free) belongs to the block it hands out (or takes back).
  const allocatorFrame = path.findIndex(
    (f, j) => j > point && context.layout.allocators.some((a) => a.function === f.function),
  );
  if (allocatorFrame > 0) {
    const kind = context.layout.allocators.find((a) => a.function === path[allocatorFrame]!.function)!.kind;
    const call = path[allocatorFrame]!.call;
    if (kind !== 'free') return fixed(staticTargets({ kind: 'return' }, allocatorFrame, point, path, context, 0));
    const freed =
      call === null ? [] : argumentLocals(context.layout.functions[path[allocatorFrame - 1]!.function]!, call, 0);
    return fixed(
      freed.length
        ? [{ kind: 'var', frame: allocatorFrame - 1, local: freed[0]!, pointer: true }]
        : [{ kind: 'other', why: 'unknown address' }],
    );
  }
  const relations = context.relations(region.function);
  const blame = relations.regionBlame(region.index);
  if (blame.sinks.length === 0) return fixed([{ kind: 'other', why: 'control' }]);
  const recordedKeys = region.recorded.map((r) => JSON.stringify([r.ptr, r.offset]));
  const steps: PlanStep[] = [];
  for (const sink of blame.sinks) {
    const slot = sink.kind === 'store' ? recordedKeys.indexOf(storeKey(sink)) : -1;
    const targets = staticTargets(sink, frame, point, path, context, 0);
    if (sink.kind === 'store' && slot >= 0)
      steps.push({
        kind: 'store',
        slot,
        frame,
        base: baseLocal(sink.ptr),
        staticBase: staticBase(sink.ptr, sink.offset),
        fallback: targets,
      });
    else steps.push({ kind: 'targets', targets });
  }
  return { advances: true, steps };
}

/**
 * The (pointer, offset) key of a store sink, written once per sink: a region of a large function
 * can share its loop's thousands of sinks, and every call path sampled in it makes a plan of them.
 */
const storeKeys = new WeakMap<Sink, string>();

function storeKey(sink: Extract<Sink, { kind: 'store' }>): string {
  let key = storeKeys.get(sink);
  if (key === undefined) storeKeys.set(sink, (key = JSON.stringify([sink.ptr, sink.offset])));
  return key;
}

/** A plan's targets for one sample: its recorded addresses pick the containers. */
export function planTargets(plan: AttributionPlan, sample: Sample, context: AttributionContext): Target[] {
  if (plan.advances) context.containers.advanceTo(sample.allocations);
  const out: Target[] = [];
  for (const step of plan.steps) {
    const container = step.kind === 'store' ? storeContainer(step, sample, context) : null;
    if (container) out.push(container);
    else out.push(...(step.kind === 'store' ? step.fallback : step.targets));
  }
  return out;
}

/** The container a recorded store address falls in; null when the address is too low to be real. */
export function storeContainer(
  step: Extract<PlanStep, { kind: 'store' }>,
  sample: Sample,
  context: AttributionContext,
): Extract<Target, { kind: 'container' }> | null {
  const address = sample.addresses[step.slot] ?? 0;
  // Below 1 KiB (wasm-ld's null page) an address computed at the region's start is stale.
  if (address < (context.layout.stack ? 1024 : 1)) return null;
  return {
    kind: 'container',
    container: context.containers.find(address, sample.stackPointer),
    frame: step.frame,
    base: step.base,
    staticBase: step.staticBase,
  };
}

/** Targets of a sink without a recorded address: the variable holding the base pointer. */
function staticTargets(
  sink: Sink,
  frame: number,
  point: number,
  path: readonly Frame[],
  context: AttributionContext,
  depth: number,
): Target[] {
  if (sink.kind === 'global') return [{ kind: 'global', name: sink.name }];
  if (sink.kind === 'arg') return argumentTargets(sink, frame, path, context);
  if (sink.kind === 'store') {
    const base = baseLocal(sink.ptr);
    return base === null
      ? [{ kind: 'other', why: 'unknown address' }]
      : [{ kind: 'var', frame, local: base, pointer: true }];
  }
  // A returned value: the caller's call site decides where it goes.
  if (frame <= point || depth > MAX_BUBBLE) return [{ kind: 'result', frame }];
  const call = path[frame]!.call;
  const caller = path[frame - 1]!;
  if (call === null) return [{ kind: 'result', frame }];
  const relations = context.relations(caller.function);
  const sinks = relations.resultSinks(`c${call}`);
  const out: Target[] = [];
  for (const next of sinks) out.push(...staticTargets(next, frame - 1, point, path, context, depth + 1));
  if (sinks.length === 0) {
    const local = relations.receivers(`c${call}`).locals[0];
    if (local !== undefined) out.push({ kind: 'var', frame: frame - 1, local });
  }
  return out.length > 0 ? out : [{ kind: 'other', why: 'control' }];
}

/** Where a callee puts a value passed to it: the caller's variables it was given as pointers, and globals. */
function argumentTargets(
  sink: Extract<Sink, { kind: 'arg' }>,
  frame: number,
  path: readonly Frame[],
  context: AttributionContext,
): Target[] {
  const fn = path[frame]!.function;
  const exits = new Map<string, ParameterExit>();
  for (const callee of context.calleesAt(fn, sink.call))
    for (const exit of parameterExits(callee, sink.arg, context, 0)) exits.set(JSON.stringify(exit), exit);
  const out: Target[] = [];
  for (const exit of exits.values()) {
    if ('global' in exit) out.push({ kind: 'global', name: exit.global });
    else {
      const local = argumentLocals(context.layout.functions[fn]!, sink.call, exit.param)[0];
      if (local !== undefined) out.push({ kind: 'var', frame, local, pointer: true });
    }
  }
  return out.length > 0 ? out : [{ kind: 'other', why: 'callee argument' }];
}

/** A callee's transfer function for one parameter: the pointer parameters it stores the value through, and globals. */
type ParameterExit = { param: number } | { global: string };

const MAX_CALL_DEPTH = 8;
/** wasm-ld places static data from here up; a constant below it in an address is a field offset. */
const STATIC_DATA = 1024;
const exitsCache = new WeakMap<AttributionContext, Map<string, ParameterExit[]>>();
const writesCache = new WeakMap<AttributionContext, Map<number, number[]>>();

/**
 * Where the value of parameter `arg` of function `fn` ends up: stores into memory reached from a
 * pointer parameter (`state->dq[i] = v`, also through a loaded field, or through a pointer computed
 * from the parameter in an earlier region or returned by a call it was passed to), globals, and the
 * same in the callees it passes the value on to. A parameter the callee uses only to address memory
 * or steer control (an index, a key, `this`) has no data flow of its own: like a loop counter it is
 * charged to what the code it steers writes — the parameters the callee stores through. A result it
 * returns is not followed (the call's result is unused).
 */
function parameterExits(fn: number, arg: number, context: AttributionContext, depth: number): ParameterExit[] {
  let cache = exitsCache.get(context);
  if (!cache) exitsCache.set(context, (cache = new Map()));
  const key = `${fn}:${arg}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const facts = context.layout.functions[fn];
  if (!facts || arg >= facts.params || depth > MAX_CALL_DEPTH) return [];
  cache.set(key, []); // recursion: a cycle adds nothing
  const exits = new Map<string, ParameterExit>();
  const add = (exit: ParameterExit) => exits.set(JSON.stringify(exit), exit);
  const relations = context.relations(fn);
  const terminals = relations.localSinks(arg, 0);
  for (const terminal of terminals) {
    if (terminal.kind === 'global') add({ global: terminal.name });
    else if (terminal.kind === 'store') {
      const root = rootLocal(terminal.ptr) ?? terminal.base ?? null;
      if (root !== null) for (const param of pointerParams(facts, root)) add({ param });
    } else if (terminal.kind === 'arg') {
      for (const next of context.calleesAt(fn, terminal.call))
        for (const exit of parameterExits(next, terminal.arg, context, depth + 1)) {
          if ('global' in exit) add(exit);
          else
            for (const local of argumentLocals(facts, terminal.call, exit.param))
              for (const param of pointerParams(facts, local)) add({ param });
        }
    }
  }
  if (terminals.length === 0) for (const param of writtenParams(fn, context, depth)) add({ param });
  const result = [...exits.values()];
  cache.set(key, result);
  return result;
}

/** The parameters whose memory function `fn` stores into: directly, or through the callees it passes them to. */
function writtenParams(fn: number, context: AttributionContext, depth: number): number[] {
  let cache = writesCache.get(context);
  if (!cache) writesCache.set(context, (cache = new Map()));
  const cached = cache.get(fn);
  if (cached) return cached;
  const facts = context.layout.functions[fn];
  if (!facts || depth > MAX_CALL_DEPTH) return [];
  cache.set(fn, []); // recursion: a cycle adds nothing
  const params = new Set<number>();
  for (const fact of facts.facts) {
    const t = fact.target;
    if (t.kind === 'store') {
      // An address with a static data base (`table + i`) is indexed by the local, not based on it.
      const root = (staticBase(t.ptr, t.offset) ?? 0) < STATIC_DATA ? (rootLocal(t.ptr) ?? t.base ?? null) : null;
      if (root !== null) for (const param of pointerParams(facts, root)) params.add(param);
    } else if (
      t.kind === 'arg' &&
      context.calleesAt(fn, t.call).some((c) => writtenParams(c, context, depth + 1).includes(t.arg))
    ) {
      for (const source of fact.sources)
        if (source.startsWith('l'))
          for (const param of pointerParams(facts, Number(source.slice(1)))) params.add(param);
    }
  }
  const result = [...params].sort((a, b) => a - b);
  cache.set(fn, result);
  return result;
}

/** The local an address is based on, also through loaded fields (`p->buf[i]`: p). */
function rootLocal(ptr: AddressAst): number | null {
  const base = baseLocal(ptr);
  if (base !== null) return base;
  const load = baseLoad(ptr);
  return load ? rootLocal(load.ld) : null;
}

/** The constant part of a static-data address (`&table[0]` in `table[i]`), null without one. */
export function staticBase(ptr: AddressAst, offset: number): number | null {
  // A "negative" constant (p - 4) is an offset from a pointer, not the address of data.
  const base = (c: number) => (c >= 0x80000000 ? null : (c + offset) >>> 0);
  if (typeof ptr === 'number') return base(ptr);
  if (ptr === null || 'l' in ptr || 'ld' in ptr) return null;
  if (ptr.op !== 'add') return null;
  if (typeof ptr.a === 'number') return base(ptr.a);
  if (typeof ptr.b === 'number') return base(ptr.b);
  return null;
}
