// One walk over a function body for the sampling pass: splits it into the loop profiler's
// straight-line regions (a region starts at function entry, at a loop header, in each `if` arm and
// after an instruction that may branch away; code after a construct nothing escapes from continues
// the region before it, as in passes/loops.ts) with their instruction counts, and records the
// function's data flow as plain facts (instrument/flow-facts.ts) tagged with their region. Nothing is
// changed here: the placements are returned and the pass applies them once it knows each region's
// sample record.
import binaryen from 'binaryen';
import {
  Binary,
  Break,
  Call,
  Const,
  Func,
  GlobalGet,
  GlobalSet,
  Id,
  If,
  Load,
  LocalGet,
  LocalSet,
  Loop,
  Select,
  Store,
  Switch,
  branchTargets,
  childSlots,
  idOf,
  isCountedInstruction,
  labelOf,
  typeOf,
  type ChildSlot,
  type Expr,
} from './ir.js';
import { buildCfg } from './cfg.js';
import { MEMORY_GROW_FUNCTION } from './reserved-names.js';
import type { AddressAst, AddressOp, FlowFact, FlowTarget } from './flow-facts.js';
import { baseLocal, callSource, growSource, localSource } from './flow-facts.js';

export interface WalkedRegion {
  /** Index among the function's regions. */
  index: number;
  instructions: number;
  /** Innermost natural loop (index into the function's loops), -1 for none. */
  loop: number;
  /** Puts `check` where the region starts (applied after the walk). */
  place: (check: Expr) => void;
  /** Starts a loop iteration (or the function): its check may never be left out. */
  header: boolean;
  /** Calls of folded leaves (`foldedCallees`) counted in `instructions`: where each leaf's instructions start, in counting order. */
  folded?: FoldedCall[];
}

/** A folded leaf's instructions inside its caller's region: positions `start` to `start + instructions - 1`. */
export interface FoldedCall {
  callee: string;
  start: number;
  instructions: number;
}

export interface WalkedFunction {
  regions: WalkedRegion[];
  facts: FlowFact[];
  /** memory.grow calls (after the memory layout, calls to its grow function), in order. */
  growCalls: Expr[];
  /** Slots holding `return`s (the pass turns them into branches to its exit). */
  returns: Array<{ slot: ChildSlot; value: Expr | null }>;
  /** The slot of every call, as found by the walk. */
  callSlots: Map<Expr, ChildSlot>;
  /** The slot of every loop, as found by the walk. */
  loopSlots: Map<Expr, ChildSlot>;
  /**
   * Per call: its region, and whether nothing between the region's start and the call changes the
   * countdown (no region starts inside, no call but of `quietCallees`).
   */
  callRegions: Map<Expr, { region: number; clean: boolean }>;
  /**
   * Per branch target label, every branch to it: its region, whether nothing since that region's
   * start changed the countdown, and whether it is a plain `br` (no condition, no value).
   */
  branchesTo: Map<string, Array<{ region: number | null; clean: boolean; plain: boolean }>>;
  /** Per loop: the region it is entered from (whose start runs before every entry), null in unreachable code. */
  loopEntries: Map<Expr, number | null>;
  stackLocals: number[];
  /** The body after the walk (a region placed after the whole body replaces it). */
  body: Expr;
}

const BINARY_OPS = new Map<number, AddressOp>([
  [binaryen.AddInt32, 'add'],
  [binaryen.SubInt32, 'sub'],
  [binaryen.MulInt32, 'mul'],
  [binaryen.ShlInt32, 'shl'],
  [binaryen.ShrUInt32, 'shr_u'],
  [binaryen.ShrSInt32, 'shr_s'],
  [binaryen.AndInt32, 'and'],
  [binaryen.OrInt32, 'or'],
  [binaryen.XorInt32, 'xor'],
]);

export interface WalkInput {
  module: binaryen.Module;
  func: number;
  loopExprs: Expr[];
  callExprs: Expr[];
  /** Program address 0 in the real memory (offsets of program accesses include it after the layout). */
  programBase: number;
  /** The shadow stack pointer global (wasi-libc's __stack_pointer), if any. */
  stackPointer: string | null;
  tempOf: (type: number) => number;
  /** Direct-call leaves that carry no code of their own: a call to one counts its instructions here. */
  foldedCallees?: ReadonlyMap<string, number>;
  /** Callees that leave the countdown alone (callWindows). */
  quietCallees?: ReadonlyMap<string, number>;
}

export function walkFunction(input: WalkInput): WalkedFunction {
  const { module, func, loopExprs, callExprs, programBase, stackPointer, tempOf: tempLocal } = input;
  const body = Func.getBody(func);
  const cfg = buildCfg(body);
  const loopIndex = new Map(loopExprs.map((e, i) => [e, i]));
  const callIndex = new Map(callExprs.map((e, i) => [e, i]));
  const regions: WalkedRegion[] = [];
  const facts: FlowFact[] = [];
  const growCalls: Expr[] = [];
  const returns: WalkedFunction['returns'] = [];
  const callSlots = new Map<Expr, ChildSlot>();
  const loopSlots = new Map<Expr, ChildSlot>();
  const callRegions = new Map<Expr, { region: number; clean: boolean }>();
  const branchesTo: WalkedFunction['branchesTo'] = new Map();
  const loopEntries = new Map<Expr, number | null>();
  /** Regions in which something has changed the countdown since their start. */
  const dirty = new Set<number>();
  const stackLocals = new Set<number>();
  const naturalLoopAt = (node: number | undefined, fallback: number) =>
    node === undefined ? fallback : cfg.innermost[node]!;

  /** Definitions made earlier in the current region: a local's address expression in terms of region-start values. */
  let defs = new Map<number, AddressAst>();
  /** Locals set inside the construct being walked (made unknown when the enclosing region continues after it). */
  let setInside = new Set<number>();
  let current: WalkedRegion | null = null;
  const newRegion = (loop: number, place: (check: Expr) => void): WalkedRegion => {
    if (current) dirty.add(current.index);
    const region: WalkedRegion = { index: regions.length, instructions: 0, loop, place, header: false };
    regions.push(region);
    defs = new Map();
    return region;
  };
  const startAfter = (slot: ChildSlot, expr: Expr, loop: number, original: Expr = expr): WalkedRegion =>
    newRegion(naturalLoopAt(cfg.after.get(original), loop), (check) => {
      const type = typeOf(expr);
      slot.replace(type === binaryen.none ? blockOf([expr, check], binaryen.none) : withValue(expr, check, type));
    });
  const blockOf = (list: Expr[], type: number) => module.block(null, list, type);
  const withValue = (expr: Expr, check: Expr, type: number) => {
    const temp = tempLocal(type);
    return blockOf([module.local.set(temp, expr), check, module.local.get(temp, type)], type);
  };

  const ast = (expr: Expr, scratch: Map<number, AddressAst> = defs): AddressAst => {
    const id = idOf(expr);
    if (typeOf(expr) !== binaryen.i32) return null;
    if (id === Id.Const) return Const.getValueI32(expr) >>> 0;
    if (id === Id.LocalGet) {
      const local = LocalGet.getIndex(expr);
      return scratch.has(local) ? scratch.get(local)! : { l: local };
    }
    if (id === Id.LocalSet) return ast(LocalSet.getValue(expr), scratch);
    if (id === Id.Binary) {
      const op = BINARY_OPS.get(Binary.getOp(expr));
      if (!op) return null;
      return { op, a: ast(Binary.getLeft(expr), scratch), b: ast(Binary.getRight(expr), scratch) };
    }
    if (id === Id.Load) {
      if (Load.getBytes(expr) !== 4 || Load.isAtomic(expr)) return null;
      return { ld: ast(Load.getPtr(expr), scratch), off: (Load.getOffset(expr) >>> 0) - programBase };
    }
    if (id === Id.Block) {
      // The bounds check of an 'above' memory layout: (block (local.set $p ptr) (if ...) (local.get $p)).
      const inner = new Map(scratch);
      const kids = childSlots(expr);
      for (const kid of kids.slice(0, -1)) {
        if (idOf(kid.expr) === Id.LocalSet)
          inner.set(LocalSet.getIndex(kid.expr), ast(LocalSet.getValue(kid.expr), inner));
      }
      const last = kids.at(-1);
      return last ? ast(last.expr, inner) : null;
    }
    if (id === Id.GlobalGet && stackPointer && GlobalGet.getName(expr) === stackPointer) return null;
    return null;
  };

  /** Where a value comes from: locals and call results, not addresses, conditions or memory. */
  const sources = (expr: Expr, into: Set<string> = new Set()): Set<string> => {
    const id = idOf(expr);
    if (id === Id.LocalGet) into.add(localSource(LocalGet.getIndex(expr)));
    else if (id === Id.LocalSet) {
      if (LocalSet.isTee(expr)) into.add(localSource(LocalSet.getIndex(expr)));
    } else if (id === Id.Call || id === Id.CallIndirect) {
      const target = id === Id.Call ? Call.getTarget(expr) : null;
      if (target === MEMORY_GROW_FUNCTION) into.add(growSource(growCalls.indexOf(expr)));
      else if (callIndex.has(expr)) into.add(callSource(callIndex.get(expr)!));
    } else if (id === Id.Block) {
      const last = childSlots(expr).at(-1);
      if (last) sources(last.expr, into);
    } else if (id === Id.If) {
      sources(If.getIfTrue(expr), into);
      const no = If.getIfFalse(expr);
      if (no) sources(no, into);
    } else if (id === Id.Loop) sources(Loop.getBody(expr), into);
    else if (id === Id.Select) {
      sources(Select.getIfTrue(expr), into);
      sources(Select.getIfFalse(expr), into);
    } else if (id !== Id.Load && id !== Id.Break && id !== Id.Switch && id !== Id.GlobalGet && id !== Id.Const) {
      for (const child of childSlots(expr)) sources(child.expr, into);
    }
    return into;
  };
  const fact = (target: FlowTarget, value: Expr | null) => {
    if (!current) return;
    facts.push({ region: current.index, target, sources: value ? [...sources(value)] : [] });
  };

  const walk = (slot: ChildSlot, expr: Expr, loop: number): Set<string> => {
    const id = idOf(expr);
    const escapes = new Set<string>();
    const merge = (inner: Set<string>) => inner.forEach((label) => escapes.add(label));
    const count = () => {
      if (!current || !isCountedInstruction(expr)) return;
      current.instructions += 1;
      const callee = id === Id.Call ? Call.getTarget(expr) : null;
      const leaf = callee === null ? undefined : input.foldedCallees?.get(callee);
      if (leaf === undefined) return;
      (current.folded ??= []).push({ callee: callee!, start: current.instructions, instructions: leaf });
      current.instructions += leaf;
    };
    const nested = (run: () => void) => {
      const outerSet = setInside;
      setInside = new Set();
      run();
      const inner = setInside;
      setInside = outerSet;
      inner.forEach((l) => setInside.add(l));
      return inner;
    };
    const continueAfter = (entry: WalkedRegion | null, entryDefs: Map<number, AddressAst>, inner: Set<number>) => {
      current = entry;
      defs = entryDefs;
      inner.forEach((l) => defs.set(l, null));
    };
    if (id === Id.Loop) {
      count();
      loopSlots.set(expr, slot);
      const k = loopIndex.get(expr)!;
      const entry = current;
      loopEntries.set(expr, entry?.index ?? null);
      const entryDefs = defs;
      const inner = nested(() => {
        current = newRegion(k, (check) => Loop.setBody(expr, blockOf([check, Loop.getBody(expr)], binaryen.auto)));
        current.header = true;
        const body = Loop.getBody(expr);
        merge(walk({ expr: body, replace: (c) => Loop.setBody(expr, c) }, body, k));
      });
      const label = Loop.getName(expr);
      if (label) escapes.delete(label);
      if (typeOf(expr) === binaryen.unreachable) current = null;
      else if (escapes.size === 0) continueAfter(entry, entryDefs, inner);
      else current = startAfter(slot, expr, loop);
      return escapes;
    }
    if (id === Id.If) {
      const conditionSlot: ChildSlot = { expr: If.getCondition(expr), replace: (c) => If.setCondition(expr, c) };
      merge(walk(conditionSlot, conditionSlot.expr, loop));
      fact({ kind: 'cond' }, If.getCondition(expr));
      count();
      const entry = current;
      const entryDefs = defs;
      const inner = nested(() => {
        for (const [get, set] of [
          [If.getIfTrue, If.setIfTrue],
          [If.getIfFalse, If.setIfFalse],
        ] as const) {
          const arm = get(expr);
          if (!arm) continue;
          current = entry
            ? newRegion(naturalLoopAt(cfg.nodeOf.get(arm), loop), (check) =>
                set(expr, blockOf([check, get(expr)], binaryen.auto)),
              )
            : null;
          merge(walk({ expr: arm, replace: (c) => set(expr, c) }, arm, loop));
        }
      });
      if (typeOf(expr) === binaryen.unreachable) current = null;
      else if (escapes.size === 0) continueAfter(entry, entryDefs, inner);
      else current = entry ? startAfter(slot, expr, loop) : null;
      return escapes;
    }
    if (id === Id.Block) {
      const entry = current;
      const entryDefs = defs;
      const inner = nested(() => {
        for (const child of childSlots(expr)) merge(walk(child, child.expr, loop));
      });
      const label = labelOf(expr);
      if (label) escapes.delete(label);
      if (typeOf(expr) === binaryen.unreachable) current = null;
      else if (escapes.size === 0) {
        // Straight through: the block's own definitions stay known.
        if (current !== entry) continueAfter(entry, entryDefs, inner);
      } else current = entry ? startAfter(slot, expr, loop) : null;
      return escapes;
    }
    for (const child of childSlots(expr)) merge(walk(child, child.expr, loop));
    count();
    if (id === Id.LocalSet) {
      const local = LocalSet.getIndex(expr);
      fact({ kind: 'local', local }, LocalSet.getValue(expr));
      const value = LocalSet.getValue(expr);
      if (stackPointer && readsStackPointer(value, stackPointer, stackLocals)) stackLocals.add(local);
      defs.set(local, ast(value));
      setInside.add(local);
    } else if (id === Id.Store) {
      fact(
        {
          kind: 'store',
          ptr: ast(Store.getPtr(expr)),
          offset: (Store.getOffset(expr) >>> 0) - programBase,
          bytes: Store.getBytes(expr),
          base: baseLocal(ast(Store.getPtr(expr), new Map())),
        },
        Store.getValue(expr),
      );
    } else if (id === Id.GlobalSet) {
      if (GlobalSet.getName(expr) !== stackPointer)
        fact({ kind: 'global', name: GlobalSet.getName(expr) }, GlobalSet.getValue(expr));
    } else if (id === Id.Return) {
      const value = childSlots(expr)[0]?.expr ?? null;
      fact({ kind: 'return' }, value);
      returns.push({ slot, value });
    } else if (id === Id.Break || id === Id.Switch) {
      const condition = id === Id.Break ? Break.getCondition(expr) : Switch.getCondition(expr);
      if (condition) fact({ kind: 'cond' }, condition);
    } else if (id === Id.Call || id === Id.CallIndirect) {
      if (id === Id.Call && Call.getTarget(expr) === MEMORY_GROW_FUNCTION) growCalls.push(expr);
      callSlots.set(expr, slot);
      if (current) {
        callRegions.set(expr, { region: current.index, clean: !dirty.has(current.index) });
        if (id !== Id.Call || !input.quietCallees?.has(Call.getTarget(expr))) dirty.add(current.index);
      }
      const call = callIndex.get(expr);
      if (call !== undefined) {
        const operands = childSlots(expr);
        const count = id === Id.CallIndirect ? operands.length - 1 : operands.length;
        for (let k = 0; k < count; k++) fact({ kind: 'arg', call, arg: k }, operands[k]!.expr);
      }
    }
    for (const target of branchTargets(expr)) {
      escapes.add(target);
      const plain = id === Id.Break && !Break.getCondition(expr) && !Break.getValue(expr);
      const branch = { region: current?.index ?? null, clean: current !== null && !dirty.has(current.index), plain };
      branchesTo.set(target, [...(branchesTo.get(target) ?? []), branch]);
    }
    if (id === Id.Return) escapes.add('');
    if (typeOf(expr) === binaryen.unreachable) current = null;
    else if (id === Id.Break && escapes.size > 0 && current) current = startAfter(slot, expr, loop);
    return escapes;
  };

  // The entry region's check goes after the pass's prologue: the pass places it.
  current = newRegion(-1, () => undefined);
  current.header = true;
  let root = body;
  walk({ expr: body, replace: (c) => (root = c) }, body, -1);
  if (Func.getResults(func) !== binaryen.none) fact({ kind: 'return' }, root);
  return {
    regions,
    facts,
    growCalls,
    returns,
    callSlots,
    loopSlots,
    callRegions,
    branchesTo,
    loopEntries,
    stackLocals: [...stackLocals],
    get body() {
      return root;
    },
  };
}

function readsStackPointer(expr: Expr, stackPointer: string, stackLocals: Set<number>): boolean {
  const id = idOf(expr);
  if (id === Id.GlobalGet) return GlobalGet.getName(expr) === stackPointer;
  if (id === Id.LocalGet) return stackLocals.has(LocalGet.getIndex(expr));
  if (id === Id.LocalSet) return readsStackPointer(LocalSet.getValue(expr), stackPointer, stackLocals);
  if (id === Id.Binary)
    return (
      readsStackPointer(Binary.getLeft(expr), stackPointer, stackLocals) ||
      readsStackPointer(Binary.getRight(expr), stackPointer, stackLocals)
    );
  return false;
}
