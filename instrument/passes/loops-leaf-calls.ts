// The loop profiler's counting of calls to direct-call leaves (instrument/direct-leaves.ts) in their
// caller. A leaf has no prologue: its caller
// - makes sure the leaf's context node exists at the site's first call under the caller's node
//   (the moment the leaf's own prologue would have created it, so nodes are numbered as without
//   this): one load of the site's child list and a test per call; a site in a loop's header region
//   that nothing creating a node precedes in that region is checked once per loop entry instead;
// - counts the calls only where the count is not known anyway: a site in the function's entry
//   region runs once per invocation, one in a loop's header region once per header execution (the
//   loop's header counter); elsewhere a local counts them;
// - adds the count at its exit into a slot of its *own* node, one per leaf site (after the
//   child-slot lists); the decoder (src/profile/loop-profile.ts) credits it to the leaf's node.
// Calls that found the tree full are counted as lost exactly as a leaf prologue would have counted them.
import binaryen from 'binaryen';
import { addVar, i64Const, typeOf, type ChildSlot, type Expr } from '../ir.js';
import type { ContextTree } from '../context-tree.js';

/** Where a leaf call site sits, which says how its calls are counted. */
export type LeafSiteRegion =
  { kind: 'entry' } | { kind: 'header'; loop: number; hoisted: boolean } | { kind: 'counted' };

/** Per leaf site, for the decoder: the site's child-list offset and its count slot, in the caller's node. */
export interface LeafSiteRecord {
  site: number;
  count: number;
}

interface Site {
  siteOffset: number;
  countOffset: number;
  functionIndex: number;
  region: LeafSiteRegion;
  /** The counting local of a `counted` site. */
  calls: number | null;
}

export class LeafCallCounter {
  private readonly sites: Site[] = [];
  private tempNode: number | null = null;
  private hoistLost: number | null = null;

  constructor(
    private readonly module: binaryen.Module,
    private readonly tree: ContextTree,
    private readonly func: binaryen.FunctionRef,
    private readonly nodeLocal: number,
    /** Offset of the first count slot in the caller's node. */
    private readonly countsOffset: number,
    private readonly leafNodeBytes: number,
    private readonly counters: Set<number>,
    private readonly tempOf: (type: number) => number,
  ) {}

  get records(): LeafSiteRecord[] {
    return this.sites.map((s) => ({ site: s.siteOffset, count: s.countOffset }));
  }

  get siteCount(): number {
    return this.sites.length;
  }

  /** Instruments the leaf call in `slot` (call site at `siteOffset`, callee function number `functionIndex`, 0-based). */
  countCall(slot: ChildSlot, call: Expr, siteOffset: number, functionIndex: number, region: LeafSiteRegion): void {
    const m = this.module;
    const site: Site = {
      siteOffset,
      countOffset: this.countsOffset + 8 * this.sites.length,
      functionIndex,
      region,
      calls: region.kind === 'counted' ? addVar(this.func, binaryen.i64) : null,
    };
    this.sites.push(site);
    const after: Expr[] = [];
    if (!(region.kind === 'header' && region.hoisted)) after.push(this.ensureNode(site, false));
    if (site.calls !== null) {
      this.counters.add(site.calls);
      after.push(m.local.set(site.calls, m.i64.add(m.local.get(site.calls, binaryen.i64), i64Const(m, 1))));
    }
    if (after.length === 0) return;
    const type = typeOf(call);
    if (type === binaryen.none) slot.replace(m.block(null, [call, ...after], binaryen.none));
    else {
      const temp = this.tempOf(type);
      slot.replace(m.block(null, [m.local.set(temp, call), ...after, m.local.get(temp, type)], type));
    }
  }

  /** The node checks of loop `loop`'s hoisted sites, to run at each entry of the loop, in call order. */
  hoistedChecks(loop: number): Expr[] {
    return this.sites
      .filter((s) => s.region.kind === 'header' && s.region.hoisted && s.region.loop === loop)
      .map((s) => this.ensureNode(s, true));
  }

  /**
   * At function exit: every site's count into its slot, and the calls lost to a full tree.
   * `headers(k)`/`entries(k)` read loop k's counters of this invocation.
   */
  flush(headers: (loop: number) => Expr, entries: (loop: number) => Expr): Expr[] {
    const m = this.module;
    if (this.sites.length === 0) return [];
    const i64 = binaryen.i64;
    const node = () => m.local.get(this.nodeLocal, binaryen.i32);
    const countOf = (s: Site): Expr =>
      s.region.kind === 'entry'
        ? i64Const(m, 1)
        : s.region.kind === 'header'
          ? headers(s.region.loop)
          : m.local.get(s.calls!, i64);
    const flush: Expr[] = this.sites.map((s) =>
      m.i64.store(s.countOffset, 8, node(), m.i64.add(m.i64.load(s.countOffset, 8, node()), countOf(s))),
    );
    // Under a scratch node no site looked for a node (its child lists are never written): every call is lost.
    const total = this.sites.map((s) => m.i32.wrap(countOf(s))).reduce((sum, c) => m.i32.add(sum, c));
    flush.push(m.if(this.tree.isScratch(node()), this.tree.countLost(total)));
    if (this.hoistLost !== null) {
      // A hoisted check that found the tree full counted one lost call per loop entry; the site ran once per header.
      const lost = this.sites
        .filter((s) => s.region.kind === 'header' && s.region.hoisted)
        .map((s) => {
          const loop = (s.region as { loop: number }).loop;
          return m.if(
            m.i32.eqz(m.i32.load(s.siteOffset, 4, node())),
            this.tree.countLost(m.i32.wrap(m.i64.sub(headers(loop), entries(loop)))),
          );
        });
      flush.push(m.if(m.local.get(this.hoistLost, binaryen.i32), m.block(null, lost, binaryen.none)));
    }
    return flush;
  }

  /** The leaf's node under a real caller node when the site's child list is still empty (a full tree leaves it empty). */
  private ensureNode(site: Site, hoisted: boolean): Expr {
    const m = this.module;
    const i32 = binaryen.i32;
    const node = () => m.local.get(this.nodeLocal, i32);
    if (this.tempNode === null) this.counters.add((this.tempNode = addVar(this.func, i32)));
    const create: Expr[] = [
      this.tree.childNode(this.nodeLocal, site.siteOffset, this.tempNode, site.functionIndex, this.leafNodeBytes),
    ];
    if (hoisted) {
      if (this.hoistLost === null) this.counters.add((this.hoistLost = addVar(this.func, i32)));
      create.push(
        m.if(this.tree.isScratch(m.local.get(this.tempNode, i32)), m.local.set(this.hoistLost, m.i32.const(1))),
      );
    }
    return m.if(
      m.i32.eqz(m.i32.load(site.siteOffset, 4, node())),
      m.if(m.i32.eqz(this.tree.isScratch(node())), m.block(null, create, binaryen.none)),
    );
  }
}
