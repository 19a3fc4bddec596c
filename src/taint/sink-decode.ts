// Reads the taint pass's sinks after a run: per loop the parameters of each exit condition and its
// iterations, over all calling contexts and per context (from the context tree, context-nodes.ts);
// per conditional branch and library-cost call its parameters and whether it ran. Where the static
// trip-count proof and the run disagree the run wins, with a warning.
import type { InstrumentedSites } from '../../instrument/pipeline.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import { formatLocation } from '../../instrument/debug/locations.js';
import type { TaintContextNode } from './context-nodes.js';
import type { TaintBranch, TaintImportCall, TaintLoop, TaintLoopContext } from './report.js';

export function bitsToNames(bits: number, names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < 32; i++) if ((bits >>> i) & 1) out.push(names[i] ?? `#${i}`);
  return out;
}

export const unionBits = (exits: number[]) => exits.reduce((a, b) => a | b, 0) >>> 0;

export interface DecodedLoops {
  loops: TaintLoop[];
  /** Entries per loop over all contexts (0: never entered). */
  entries: Map<string, number>;
}

/** The loops of the site table with the labels and counts their sinks hold; static-proof conflicts go to `warnings`. */
export function decodeLoops(
  sites: InstrumentedSites,
  layout: TaintLayout,
  nodesOf: Map<string, TaintContextNode[]>,
  names: string[],
  warnings: string[],
): DecodedLoops {
  const loopSite = new Map(sites.loops.map((l) => [l.id, l]));
  const loopSink = new Map<string, { params: string[]; exits: string[][]; iterations: number; entries: number }>();
  const loopContexts = new Map<string, TaintLoopContext[]>();
  for (const loop of layout.loops) {
    const topTested = loopSite.get(loop.id)?.topTested ?? false;
    const exitBits: number[] = new Array<number>(loop.exitConditions).fill(0);
    let allHeaders = 0;
    let allEntries = 0;
    const contexts: TaintLoopContext[] = [];
    for (const node of nodesOf.get(loop.function) ?? []) {
      const sink = node.loops.get(loop.id)!;
      if (sink.entries === 0) continue;
      sink.exits.forEach((bits, i) => (exitBits[i] = (exitBits[i]! | bits) >>> 0));
      allHeaders += sink.headers;
      allEntries += sink.entries;
      contexts.push({
        node: node.index,
        callpath: node.callpath,
        call: node.call,
        caller: node.parent?.function ?? null,
        params: bitsToNames(unionBits(sink.exits), names),
        exits: sink.exits.map((bits) => bitsToNames(bits, names)),
        iterations: topTested ? sink.headers - sink.entries : sink.headers,
      });
    }
    loopSink.set(loop.id, {
      params: bitsToNames(unionBits(exitBits), names),
      exits: exitBits.map((bits) => bitsToNames(bits, names)),
      iterations: topTested ? allHeaders - allEntries : allHeaders,
      entries: allEntries,
    });
    loopContexts.set(loop.id, contexts);
  }
  const loops: TaintLoop[] = sites.loops.map((site) => {
    const sink = loopSink.get(site.id) ?? { params: [], exits: [], iterations: 0, entries: 0 };
    return {
      id: site.id,
      function: site.function,
      parent: site.parent,
      depth: site.depth,
      params: sink.params,
      exits: sink.exits,
      iterations: sink.iterations,
      executed: sink.entries > 0,
      staticTrips: site.staticTrips ?? null,
      contexts: loopContexts.get(site.id) ?? [],
    };
  });
  const entries = new Map([...loopSink].map(([id, sink]) => [id, sink.entries]));
  // The run is the ground truth: a loop proven constant whose exit conditions carried labels, or
  // whose iteration count differs from the proof, is reported (and counted) as the run saw it.
  for (const loop of loops) {
    if (loop.staticTrips === null) continue;
    const entered = entries.get(loop.id) ?? 0;
    if (loop.params.length > 0) {
      warnings.push(
        `${loop.id} (${loop.function}): the static analysis proved ${loop.staticTrips} iteration(s) per entry, but its exit conditions carried ${loop.params.join(', ')} in this run; the report uses the run's labels`,
      );
    } else if (entered > 0 && loop.iterations !== loop.staticTrips * entered) {
      warnings.push(
        `${loop.id} (${loop.function}): the static analysis proved ${loop.staticTrips} iteration(s) per entry, but the run counted ${loop.iterations} in ${entered} entr${entered === 1 ? 'y' : 'ies'}`,
      );
    }
  }
  return { loops, entries };
}

/** Conditional branches, library-cost calls and the functions without a context node that ran. */
export function decodeSiteSinks(
  layout: TaintLayout,
  sinks: Uint8Array,
  names: string[],
): { branches: TaintBranch[]; imports: TaintImportCall[]; entered: string[] } {
  const view = new DataView(sinks.buffer, sinks.byteOffset, sinks.byteLength);
  const siteWord = (sink: number) => view.getBigUint64(sink - layout.sinks.base, true);
  const branches: TaintBranch[] = layout.branches.map((b) => {
    const word = siteWord(b.sink);
    return {
      id: b.id,
      function: b.function,
      loop: b.loop,
      kind: b.kind,
      params: bitsToNames(Number(word & 0xffffffffn), names),
      executed: word >> 32n !== 0n,
      source: b.location ? formatLocation(b.location) : null,
    };
  });
  const imports: TaintImportCall[] = layout.imports.map((s) => {
    const word = siteWord(s.sink);
    const labels = bitsToNames(Number(word & 0xffffffffn), names);
    return {
      id: s.id,
      function: s.function,
      loop: s.loop,
      import: s.import,
      params: [...new Set([...s.params, ...labels])],
      executed: word >> 32n !== 0n,
    };
  });
  // Older site tables (cached) have no entry marks.
  const entered = (layout.entered ?? [])
    .filter((e) => view.getUint32(e.sink - layout.sinks.base, true) !== 0)
    .map((e) => e.function);
  return { branches, imports, entered };
}
