// Sinks of the taint pass inside one function: the records of conditional branches and
// library-cost calls (one 8-byte word each in the sink table: label | executed<<32), a loop's exit
// conditions (through its context node, taint-sinks.ts), and the flush of the function's sink
// locals into memory. Sinks accumulate in locals while the function runs and are written at its
// exit, or before a call that may not return.
import binaryen from 'binaryen';
import { addVar, i64Const, type Expr } from '../ir.js';
import type { FunctionAnalysis } from '../sites.js';
import type { SourceLocation } from '../debug/locations.js';
import { SITE_SINK_BYTES, type TaintBranchSite } from './taint-layout.js';
import type { FunctionTaint, ModuleTaint } from './taint-function.js';

/** Flushes the function's sink locals: loops into its context node, other sites into the sink table. */
export function flush(c: FunctionTaint, reset = false): Expr[] {
  const { module } = c.m;
  const i64 = binaryen.i64;
  const out: Expr[] = [c.sinks.flush(reset)];
  for (const site of c.siteLocals) {
    out.push(
      module.i64.store(
        site.sink,
        8,
        module.i32.const(0),
        module.i64.or(module.i64.load(site.sink, 8, module.i32.const(0)), module.local.get(site.local, i64)),
      ),
    );
  }
  if (reset) {
    for (const loop of c.loopLocals) out.push(module.local.set(loop.exit, module.i32.const(0)));
    for (const site of c.siteLocals) out.push(module.local.set(site.local, i64Const(module, 0)));
  }
  return out;
}
// Sink-local resets at function entry are implicit: Wasm locals start at zero.

/** A new sink-table word. */
export function newSiteSink(m: ModuleTaint): number {
  const sink = m.sinkCursor.value;
  m.sinkCursor.value += SITE_SINK_BYTES;
  return sink;
}

/** The local accumulating sink-table word `sink` in this invocation. */
function siteLocal(c: FunctionTaint, sink: number): number {
  const local = addVar(c.func, binaryen.i64);
  c.siteLocals.push({ local, sink });
  return local;
}

/** The site id of the loop (of this function) holding `expr`, or null. */
function loopSiteOf(c: FunctionTaint, expr: Expr): string | null {
  const k = c.plan.loopOf(expr);
  return k >= 0 ? c.fn.site.loops[k]! : null;
}

/** A conditional branch's sink record; returns the local accumulating it. */
export function newBranchSite(c: FunctionTaint, kind: TaintBranchSite['kind'], s: Expr): number {
  return siteLocal(c, addBranchRecord(c.m, c.fn, loopSiteOf(c, s), kind, s));
}

/** A branch's record in the layout (`loop`: the site id of the loop holding it); returns its sink-table word. */
export function addBranchRecord(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  loop: string | null,
  kind: TaintBranchSite['kind'],
  s: Expr,
): number {
  const sink = newSiteSink(m);
  m.layout.branches.push({
    id: `B${m.layout.branches.length}`,
    function: fn.site.name,
    loop,
    kind,
    sink,
    location: branchLocation(fn, s),
  });
  return sink;
}

/** A library-cost call's sink record; returns the local accumulating it. */
export function newImportSite(
  c: FunctionTaint,
  call: Expr,
  key: string,
  params: string[],
  siteCall: string | null,
): number {
  return siteLocal(c, addImportRecord(c.m, c.fn, loopSiteOf(c, call), key, params, siteCall));
}

/** A library-cost call's record in the layout; returns its sink-table word. */
export function addImportRecord(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  loop: string | null,
  key: string,
  params: string[],
  siteCall: string | null,
): number {
  const sink = newSiteSink(m);
  m.layout.imports.push({
    id: `I${m.layout.imports.length}`,
    call: siteCall,
    function: fn.site.name,
    loop,
    import: key,
    params,
    sink,
  });
  return sink;
}

const branchOrdinals = new WeakMap<FunctionAnalysis, Map<Expr, number>>();

/** Flattening keeps the branch expressions themselves, so the site table's binary-order list finds them. */
function branchLocation(fn: FunctionAnalysis, branch: Expr): SourceLocation | null {
  if (!fn.branchLocations) return null;
  let ordinals = branchOrdinals.get(fn);
  if (!ordinals) branchOrdinals.set(fn, (ordinals = new Map(fn.branchExprs.map((e, k) => [e, k]))));
  const k = ordinals.get(branch);
  return k === undefined ? null : (fn.branchLocations[k] ?? null);
}

/** Joins `label` into a site record's local and marks the site executed. */
export function recordSite(c: FunctionTaint, local: number, label: Expr): Expr {
  const { module } = c.m;
  const i64 = binaryen.i64;
  return module.local.set(
    local,
    module.i64.or(module.local.get(local, i64), module.i64.or(module.i64.extend_u(label), i64Const(module, 1n << 32n))),
  );
}

/** A new exit condition of loop k: its ordinal within the loop (from 0). */
export function newExit(c: FunctionTaint, k: number): number {
  return c.loopLocals[k]!.site.exitConditions++;
}

/** Joins `label` into exit condition `exitIndex` of loop k and into the loop's exit label. */
export function recordExit(c: FunctionTaint, k: number, exitIndex: number, label: () => Expr): Expr {
  const { module } = c.m;
  const i32 = binaryen.i32;
  const locals = c.loopLocals[k]!;
  return module.block(
    null,
    [
      c.sinks.recordExit(k, exitIndex, label()),
      module.local.set(locals.exit, module.i32.or(module.local.get(locals.exit, i32), label())),
    ],
    binaryen.none,
  );
}
