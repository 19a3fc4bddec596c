// Turns the loop profiler's raw calling-context tree (copied out of the module's memory) into the
// loop profile: one entry per loop per calling context, with the dynamic loop tree across calls
// (loop → call → function → loop), and a function-level profile beside it.
import type { SiteTable, LoopSite, CallSite } from '../../instrument/sites.js';
import type { LoopProfileLayout } from '../../instrument/passes/loops.js';
import { LOOP_PROFILE_NODE, LOOP_PROFILE_RECORD, EXTERNAL_SITE, readContextNodes } from '../../instrument/layouts.js';

export interface LoopEntry {
  /** Unique per loop and calling context: `L3#5` is loop L3 in context node 5. */
  id: string;
  loop: string;
  function: string;
  callpath: string;
  /**
   * The call site of each call along `callpath` (one per `->`), `?` where the host called in:
   * tells apart contexts whose function names are the same (`run->encodeName` called from C30 or C31).
   */
  callsites: string[];
  parent: string | null;
  depth: number;
  entries: number;
  iterations: number;
  instructions: number;
  inclusiveInstructions: number;
  calls: string[];
  /** `file:line` of the loop from debug info (loop-sources.ts), null without. */
  source?: string | null;
  /** `file:line` of each call site in `callsites` from debug info (loop-sources.ts), null where unknown. */
  callsiteSources?: Array<string | null>;
  /**
   * The file of each calling function along `callpath` (the file most of its loops and call sites
   * are in), null where unknown: a call site inlined from another file (an AssemblyScript helper)
   * is shown with its file, not as a line of the caller's.
   */
  callerFiles?: Array<string | null>;
}

export interface FunctionEntry {
  name: string;
  calls: number;
  instructions: number;
  inclusiveInstructions: number;
}

/** One calling context of a function: its call path and what ran inside it. */
export interface CallpathEntry {
  callpath: string;
  calls: number;
  instructions: number;
  inclusiveInstructions: number;
}

export interface LoopProfile {
  loops: LoopEntry[];
  functions: FunctionEntry[];
  callpaths: CallpathEntry[];
  totalInstructions: number;
}

interface ContextNode {
  index: number;
  address: number;
  functionIndex: number;
  parent: ContextNode | null;
  siteOffset: number;
  calls: number;
  ownInstructions: number;
  loops: Array<{ entries: number; headers: number; instructions: number }>;
  children: ContextNode[];
  inclusive: number;
}

export function decodeLoopProfile(
  rawTree: Uint8Array,
  table: SiteTable,
  layout: LoopProfileLayout,
  next: number,
): LoopProfile {
  const view = new DataView(rawTree.buffer, rawTree.byteOffset, rawTree.byteLength);
  const at = (address: number) => address - layout.base;
  const u32 = (address: number) => view.getUint32(at(address), true);
  const u64 = (address: number) => Number(view.getBigUint64(at(address), true));
  const nodes = new Map<number, ContextNode>();
  const ordered: ContextNode[] = [];
  for (const raw of readContextNodes(rawTree, layout, next, (f) => layout.functions[f]?.nodeBytes ?? 0)) {
    const { address, functionIndex } = raw;
    const fn = layout.functions[functionIndex]!;
    const loopCount = fn.loopHeaderInstructions.length;
    const loops = [];
    for (let k = 0; k < loopCount; k++) {
      const record = address + LOOP_PROFILE_NODE.loops + LOOP_PROFILE_RECORD.size * k;
      const entries = u64(record + LOOP_PROFILE_RECORD.entries);
      const headers = u64(record + LOOP_PROFILE_RECORD.headers);
      loops.push({
        entries,
        headers,
        instructions: u64(record + LOOP_PROFILE_RECORD.instructions) + headers * fn.loopHeaderInstructions[k]!,
      });
    }
    const calls = u64(address + LOOP_PROFILE_NODE.calls);
    const node: ContextNode = {
      index: ordered.length,
      address,
      functionIndex,
      parent: null,
      siteOffset: raw.site,
      calls,
      ownInstructions: u64(address + LOOP_PROFILE_NODE.instructions) + calls * fn.entryInstructions,
      loops,
      children: [],
      inclusive: 0,
    };
    nodes.set(address, node);
    ordered.push(node);
  }
  for (const node of ordered) {
    const parentAddress = u32(node.address + LOOP_PROFILE_NODE.parent);
    node.parent = nodes.get(parentAddress) ?? null;
    node.parent?.children.push(node);
  }
  // Calls of direct-call leaves are counted in the caller's node, one slot per site (passes/loops-leaf-calls.ts).
  for (const node of ordered) {
    for (const { site, count } of layout.functions[node.functionIndex]!.leafSites ?? []) {
      const calls = u64(node.address + count);
      const leaf = node.children.find((child) => child.siteOffset === site);
      if (!leaf || calls === 0) continue; // no node: the tree was full, and the calls are counted as lost
      leaf.calls += calls;
      leaf.ownInstructions += calls * layout.functions[leaf.functionIndex]!.entryInstructions;
    }
  }
  return buildProfile(ordered, table, layout);
}

function buildProfile(nodes: ContextNode[], table: SiteTable, layout: LoopProfileLayout): LoopProfile {
  const loopById = new Map(table.loops.map((l) => [l.id, l]));
  const callById = new Map(table.calls.map((c) => [c.id, c]));
  const functionSite = (node: ContextNode) => table.functions[node.functionIndex]!;
  const callSiteOf = (node: ContextNode): CallSite | null => {
    if (!node.parent || node.siteOffset === EXTERNAL_SITE) return null;
    const caller = functionSite(node.parent);
    const loops = layout.functions[node.parent.functionIndex]!.loopHeaderInstructions.length;
    const k = (node.siteOffset - LOOP_PROFILE_NODE.loops - LOOP_PROFILE_RECORD.size * loops) / 4;
    return callById.get(caller.calls[k]!) ?? null;
  };
  const callpathOf = new Map<ContextNode, string>();
  const pathOf = (node: ContextNode): string => {
    let path = callpathOf.get(node);
    if (path === undefined) {
      const name = functionSite(node).name;
      path = node.parent ? `${pathOf(node.parent)}->${name}` : name;
      callpathOf.set(node, path);
    }
    return path;
  };
  const callsitesOf = new Map<ContextNode, string[]>();
  const sitesOf = (node: ContextNode): string[] => {
    let sites = callsitesOf.get(node);
    if (sites === undefined) {
      sites = node.parent ? [...sitesOf(node.parent), callSiteOf(node)?.id ?? '?'] : [];
      callsitesOf.set(node, sites);
    }
    return sites;
  };
  // Inclusive counts bottom-up: children were allocated after their parents.
  const inclusiveLoop = new Map<string, number>();
  const loopKey = (node: ContextNode, loop: string) => `${loop}#${node.index}`;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    const fn = functionSite(node);
    const childByLoop = new Map<string | null, number>();
    for (const child of node.children) {
      const site = callSiteOf(child);
      const loop = site?.loop ?? null;
      childByLoop.set(loop, (childByLoop.get(loop) ?? 0) + child.inclusive);
    }
    // Innermost loops first: a loop's inclusive count adds its nested loops'.
    const loopIds = fn.loops;
    for (let k = loopIds.length - 1; k >= 0; k--) {
      const id = loopIds[k]!;
      const own = node.loops[k]!.instructions + (childByLoop.get(id) ?? 0);
      const nested = loopIds
        .filter((other) => loopById.get(other)!.parent === id)
        .reduce((sum, other) => sum + (inclusiveLoop.get(loopKey(node, other)) ?? 0), 0);
      inclusiveLoop.set(loopKey(node, id), own + nested);
    }
    const topLoops = loopIds.filter((id) => loopById.get(id)!.parent === null);
    node.inclusive =
      node.ownInstructions +
      (childByLoop.get(null) ?? 0) +
      topLoops.reduce((sum, id) => sum + inclusiveLoop.get(loopKey(node, id))!, 0);
  }
  const entries: LoopEntry[] = [];
  const enclosingEntry = (node: ContextNode): { id: string; depth: number } | null => {
    const site = callSiteOf(node);
    if (!node.parent) return null;
    if (site?.loop) {
      return { id: loopKey(node.parent, site.loop), depth: depthOf(node.parent, site.loop) };
    }
    return enclosingEntry(node.parent);
  };
  const depthCache = new Map<string, number>();
  const depthOf = (node: ContextNode, loopId: string): number => {
    const key = loopKey(node, loopId);
    let depth = depthCache.get(key);
    if (depth === undefined) {
      const loop = loopById.get(loopId)!;
      depth = loop.parent ? depthOf(node, loop.parent) + 1 : (enclosingEntry(node)?.depth ?? 0) + 1;
      depthCache.set(key, depth);
    }
    return depth;
  };
  for (const node of nodes) {
    const fn = functionSite(node);
    fn.loops.forEach((id, k) => {
      const loop: LoopSite = loopById.get(id)!;
      const counters = node.loops[k]!;
      if (counters.entries === 0 && counters.headers === 0) return;
      entries.push({
        id: loopKey(node, id),
        loop: id,
        function: fn.name,
        callpath: pathOf(node),
        callsites: sitesOf(node),
        parent: loop.parent ? loopKey(node, loop.parent) : (enclosingEntry(node)?.id ?? null),
        depth: depthOf(node, id),
        entries: counters.entries,
        iterations: loop.topTested ? counters.headers - counters.entries : counters.headers,
        instructions: counters.instructions,
        inclusiveInstructions: inclusiveLoop.get(loopKey(node, id))!,
        calls: loop.calls,
      });
    });
  }
  const functions = new Map<string, FunctionEntry>();
  for (const node of nodes) {
    const name = functionSite(node).name;
    const entry = functions.get(name) ?? { name, calls: 0, instructions: 0, inclusiveInstructions: 0 };
    entry.calls += node.calls;
    entry.instructions += node.ownInstructions + node.loops.reduce((sum, l) => sum + l.instructions, 0);
    entry.inclusiveInstructions += node.inclusive;
    functions.set(name, entry);
  }
  const callpaths = new Map<string, CallpathEntry>();
  for (const node of nodes) {
    const callpath = pathOf(node);
    const entry = callpaths.get(callpath) ?? { callpath, calls: 0, instructions: 0, inclusiveInstructions: 0 };
    entry.calls += node.calls;
    entry.instructions += node.ownInstructions + node.loops.reduce((sum, l) => sum + l.instructions, 0);
    entry.inclusiveInstructions += node.inclusive;
    callpaths.set(callpath, entry);
  }
  const totalInstructions = nodes.filter((n) => !n.parent).reduce((sum, n) => sum + n.inclusive, 0);
  return { loops: entries, functions: [...functions.values()], callpaths: [...callpaths.values()], totalInstructions };
}
