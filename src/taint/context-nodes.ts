// Reads the taint pass's calling-context tree (copied out of the module's memory) into nodes: per
// node its function, call path and call site, and per loop of the function the header executions,
// entries and the label bits of each exit condition in that context.
import { groupBy } from '../util/group-by.js';
import type { SiteTable } from '../../instrument/sites.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import { TAINT_LOOP_RECORD, EXTERNAL_SITE, readContextNodes } from '../../instrument/layouts.js';

export interface LoopInContext {
  headers: number;
  entries: number;
  /** Label bits per exit condition (by ordinal). */
  exits: number[];
}

export interface TaintContextNode {
  index: number;
  function: string;
  parent: TaintContextNode | null;
  /** The call site that entered this context (direct or indirect), null from outside. */
  call: string | null;
  /** Function names from the entry to this node's function. */
  callpath: string[];
  loops: Map<string, LoopInContext>;
  children: TaintContextNode[];
}

export function decodeContextNodes(
  raw: Uint8Array,
  next: number,
  sites: SiteTable,
  layout: TaintLayout,
): TaintContextNode[] {
  const tree = layout.contexts;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const at = (address: number) => address - tree.base;
  const u64 = (address: number) => Number(view.getBigUint64(at(address), true));
  const loopsOf = groupBy(layout.loops, (loop) => loop.function);
  const byAddress = new Map<number, TaintContextNode>();
  const nodes: TaintContextNode[] = [];
  const functionByName = new Map(sites.functions.map((f) => [f.name, f]));
  for (const entry of readContextNodes(raw, tree, next, (f) => tree.functions[f]?.nodeBytes ?? 0)) {
    const fn = sites.functions[entry.functionIndex];
    if (!fn) throw new Error(`internal: context node of unknown function ${entry.functionIndex}`);
    const parent = byAddress.get(entry.parent) ?? null;
    const call =
      parent && entry.site !== EXTERNAL_SITE
        ? (functionByName.get(parent.function)?.calls[(entry.site - tree.callSlots) / 4] ?? null)
        : null;
    const loops = new Map<string, LoopInContext>();
    for (const loop of loopsOf.get(fn.name) ?? []) {
      const exits: number[] = [];
      for (let i = 0; i < loop.exitConditions; i++)
        exits.push(view.getUint32(at(entry.address + loop.exitLabels + 4 * i), true));
      loops.set(loop.id, {
        headers: u64(entry.address + loop.record + TAINT_LOOP_RECORD.headers),
        entries: u64(entry.address + loop.record + TAINT_LOOP_RECORD.entries),
        exits,
      });
    }
    const node: TaintContextNode = {
      index: nodes.length,
      function: fn.name,
      parent,
      call,
      callpath: [...(parent?.callpath ?? []), fn.name],
      loops,
      children: [],
    };
    parent?.children.push(node);
    byAddress.set(entry.address, node);
    nodes.push(node);
  }
  return nodes;
}
