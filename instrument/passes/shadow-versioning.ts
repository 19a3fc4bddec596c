// Alignment versioning of innermost loops for the word-granular shadow memory.
//
// Every label access of 4 bytes or more is `if ((p + r) & 3) slow else aligned` (shadow-memory.ts):
// exact for any address, but the branch in a hot loop costs more than the label access itself.
// Inside a loop, the residue of a pointer mod 4 is often fixed by values known when the loop is
// entered: base pointers that the loop does not change, induction variables stepped by multiples of
// 4, offsets scaled by `<< 3`. For such a loop this pass emits
//
//   if (((z1 | z2 | ...) & 3) == 0) <copy of the loop, checks replaced by their aligned arm>
//   else <the loop as it was>
//
// where z1, z2, ... are the locals whose values at entry the proof relies on, when every check of
// the loop can go. Correctness never depends on the memarg alignment hint: a misaligned entry runs
// the original, checked loop.
//
// The proof (greatest fixpoint over the loop's i32 locals): a local is "zero" (≡ 0 mod 4 throughout
// the loop) if every assignment to it inside the loop yields zero when its operands are zero, and
// its value at entry is zero (part of the entry test). Induction over the loop's execution then
// shows every zero local stays ≡ 0 mod 4 at every point of the loop.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Break,
  Const,
  Func,
  Id,
  If,
  LocalGet,
  LocalSet,
  Loop,
  Switch,
  childSlots,
  children,
  idOf,
  runtimeNumber,
  typeOf,
  type ChildSlot,
  type Expr,
} from '../ir.js';

/** What versioning needs to know about the shadow code (shadow-memory.ts). */
export interface AlignmentChecks {
  /** Whether `expr` is an `if` on the alignment of a label access (else arm: the aligned access). */
  isAlignmentCheck(expr: Expr): boolean;
  isLabelLoad(expr: Expr): boolean;
  /** Registers a label load made here (a copy), so that one nobody reads can still be dropped. */
  markLabelLoad(expr: Expr): void;
  /** Registers a check left in a copy, so that loop versioning still finds it. */
  markAlignmentCheck(expr: Expr): void;
}

/** The i32 operations the proof reasons about, as the running binaryen numbers them. */
const Op = {
  AddInt32: runtimeNumber('AddInt32'),
  SubInt32: runtimeNumber('SubInt32'),
  MulInt32: runtimeNumber('MulInt32'),
  AndInt32: runtimeNumber('AndInt32'),
  OrInt32: runtimeNumber('OrInt32'),
  XorInt32: runtimeNumber('XorInt32'),
  ShlInt32: runtimeNumber('ShlInt32'),
};

/** Versions every innermost loop of `func` that has provably-aligned label accesses; returns how many. */
export function versionAlignedLoops(module: binaryen.Module, func: number, checks: AlignmentChecks): number {
  return versionInnermostLoops(func, (loop) => versionLoop(module, func, loop, checks));
}

/**
 * Puts `version(loop)` in place of each innermost loop of `func` it gives an expression for (null:
 * the loop stays); returns how many were replaced. The loops are collected first, so a version's
 * own copies are not visited.
 */
export function versionInnermostLoops(func: number, version: (loop: Expr) => Expr | null): number {
  const loops: Array<{ loop: Expr; replace: (e: Expr) => void }> = [];
  collectInnermostLoops(Func.getBody(func), (loop, replace) => loops.push({ loop, replace }));
  let versioned = 0;
  for (const { loop, replace } of loops) {
    const replacement = version(loop);
    if (replacement === null) continue;
    replace(replacement);
    versioned++;
  }
  return versioned;
}

/**
 * Calls `found` for each loop without a value (type none, or unreachable when it only ends by
 * branching out) with no loop inside it; returns whether `root` contains a loop.
 */
function collectInnermostLoops(root: Expr, found: (loop: Expr, replace: (e: Expr) => void) => void): boolean {
  let any = false;
  for (const slot of childSlots(root)) {
    const inner = collectInnermostLoops(slot.expr, found);
    if (idOf(slot.expr) === Id.Loop) {
      const type = typeOf(slot.expr);
      if (!inner && (type === binaryen.none || type === binaryen.unreachable)) found(slot.expr, (e) => slot.replace(e));
      any = true;
    } else if (inner) {
      any = true;
    }
  }
  return any;
}

interface Check {
  expr: Expr;
  ptr: number | null;
  residue: number;
}

interface RegionProof {
  /** The checks the proof removes. */
  eligible: Check[];
  /** Checks it could not prove (they stay in the copy). */
  kept: number;
  /** Locals whose values at entry the proof relies on. */
  needs: Set<number>;
}

/**
 * The alignment proof over `region` (a loop, or a function body): which of its checks hold ≡ 0 mod
 * 4 whenever the locals in `needs` are at entry. `entryZero(index)` says a local is known ≡ 0 at
 * entry without a test (a function's declared locals start at 0); `skip` leaves checks out.
 */
function proveRegion(
  func: number,
  region: Expr,
  checks: AlignmentChecks,
  entryZero: (index: number) => boolean,
  skip: (expr: Expr) => boolean = () => false,
): RegionProof | null {
  const assignments = new Map<number, Expr[]>();
  const found: Check[] = [];
  walk(region, (expr) => {
    const id = idOf(expr);
    if (id === Id.LocalSet) {
      const index = LocalSet.getIndex(expr);
      const list = assignments.get(index) ?? [];
      list.push(LocalSet.getValue(expr));
      assignments.set(index, list);
    } else if (id === Id.If && checks.isAlignmentCheck(expr) && !skip(expr)) {
      const check = parseCheck(expr);
      if (check) found.push(check);
    }
  });
  if (found.length === 0) return null;

  const isI32Local = (index: number) => Func.getNumLocals(func) > index && localType(func, index) === binaryen.i32;
  // Greatest fixpoint: start from every i32 local assigned in the region, drop those with an
  // assignment that is not provably ≡ 0 mod 4 from zero operands.
  const zero = new Set<number>([...assignments.keys()].filter(isI32Local));
  for (let changed = true; changed;) {
    changed = false;
    for (const index of [...zero]) {
      if (!assignments.get(index)!.every((value) => isZeroMod4(value, zero, assignments, null))) {
        zero.delete(index);
        changed = true;
      }
    }
  }
  const eligible = found.filter(
    (c) => c.residue === 0 && (c.ptr === null || isZeroMod4Local(c.ptr, zero, assignments, isI32Local, null)),
  );

  // Locals whose values at entry the proof relies on (closure through in-region assignments).
  const needs = new Set<number>();
  const pending: number[] = [];
  const need = (index: number) => {
    if (!needs.has(index)) {
      needs.add(index);
      pending.push(index);
    }
  };
  for (const c of eligible) if (c.ptr !== null) need(c.ptr);
  while (pending.length > 0) {
    const index = pending.pop()!;
    for (const value of assignments.get(index) ?? []) isZeroMod4(value, zero, assignments, need);
  }
  for (const index of [...needs]) if (entryZero(index)) needs.delete(index);
  return { eligible, kept: found.length - eligible.length, needs };
}

/**
 * `if (((z1 | z2 | ...) & 3) == 0) <copy of region, proven checks replaced by their aligned arm>
 * else <region>`.
 */
function versionRegion(module: binaryen.Module, region: Expr, proof: RegionProof, checks: AlignmentChecks): Expr {
  const fast = module.copyExpression(region);
  replaceChecks(region, fast, new Set(proof.eligible.map((c) => c.expr)), checks);
  renameLabels(fast);
  const locals = [...proof.needs].sort((x, y) => x - y).map((index) => module.local.get(index, binaryen.i32));
  if (locals.length === 0) return idOf(region) === Id.Loop ? module.block(null, [fast], binaryen.none) : fast;
  const joined = locals.reduce((acc, next) => module.i32.or(acc, next));
  return module.if(module.i32.eqz(module.i32.and(joined, module.i32.const(3))), fast, region);
}

function versionLoop(module: binaryen.Module, func: number, loop: Expr, checks: AlignmentChecks): Expr | null {
  const proof = proveRegion(func, loop, checks, () => false);
  // A loop that would keep some checks is left alone: the copy doubles its code for part of the
  // gain (measured slower on nbody, where half the pointers are reloaded inside the loop).
  if (proof === null || proof.kept > 0) return null;
  return versionRegion(module, loop, proof, checks);
}

/** Functions larger than this (expression nodes) are not copied whole. */
const FUNCTION_VERSIONING_LIMIT = 600;

/**
 * Alignment versioning of a whole function body, for the checks loop versioning cannot remove:
 * those outside innermost loops and those in innermost loops with a check it cannot prove (a
 * pointer a callee returned, as an accessor's). The proof runs over every assignment of the
 * function, so it holds from the function's entry: parameters it relies on are tested there, and
 * declared locals start at 0. Checks it cannot prove stay in the copy. Only functions of at most
 * FUNCTION_VERSIONING_LIMIT nodes where at least two checks go, so big functions do not double.
 * Returns whether the function was versioned.
 */
export function versionAlignedFunction(module: binaryen.Module, func: number, checks: AlignmentChecks): boolean {
  const body = Func.getBody(func);
  if (!smallerThan(body, FUNCTION_VERSIONING_LIMIT + 1)) return false;
  // Checks inside innermost loops that loop versioning will remove on its own do not count.
  const coveredByLoops = new Set<Expr>();
  collectInnermostLoops(body, (loop) => {
    const proof = proveRegion(func, loop, checks, () => false);
    if (proof !== null && proof.kept === 0) for (const c of proof.eligible) coveredByLoops.add(c.expr);
  });
  const params = binaryen.expandType(Func.getParams(func)).length;
  const proof = proveRegion(
    func,
    body,
    checks,
    (index) => index >= params,
    (expr) => coveredByLoops.has(expr),
  );
  if (proof === null || proof.eligible.length < 2) return false;
  Func.setBody(func, versionRegion(module, body, proof, checks));
  return true;
}

function localType(func: number, index: number): number {
  const params = binaryen.expandType(Func.getParams(func));
  return index < params.length ? params[index]! : Func.getVar(func, index - params.length);
}

/** `if ((local.get p [+ r]) & 3)` or with a constant address: the pointer local and the residue r. */
function parseCheck(expr: Expr): Check | null {
  const cond = If.getCondition(expr);
  if (idOf(cond) !== Id.Binary || Binary.getOp(cond) !== Op.AndInt32) return null;
  const mask = Binary.getRight(cond);
  if (idOf(mask) !== Id.Const || Const.getValueI32(mask) !== 3) return null;
  let address = Binary.getLeft(cond);
  let residue = 0;
  if (
    idOf(address) === Id.Binary &&
    Binary.getOp(address) === Op.AddInt32 &&
    idOf(Binary.getRight(address)) === Id.Const
  ) {
    residue = Const.getValueI32(Binary.getRight(address)) & 3;
    address = Binary.getLeft(address);
  }
  if (idOf(address) === Id.LocalGet) return { expr, ptr: LocalGet.getIndex(address), residue };
  if (idOf(address) === Id.Const) return { expr, ptr: null, residue: (Const.getValueI32(address) + residue) & 3 };
  return null;
}

function isZeroMod4Local(
  index: number,
  zero: Set<number>,
  assignments: Map<number, Expr[]>,
  isI32Local: (i: number) => boolean,
  need: ((i: number) => void) | null,
): boolean {
  if (assignments.has(index) ? !zero.has(index) : !isI32Local(index)) return false;
  need?.(index);
  return true;
}

/**
 * Whether `expr` is ≡ 0 mod 4 whenever the locals in `zero` (and the loop-invariant locals it
 * reads, at their entry values) are; `need` records each local the answer relies on.
 */
function isZeroMod4(
  expr: Expr,
  zero: Set<number>,
  assignments: Map<number, Expr[]>,
  need: ((i: number) => void) | null,
): boolean {
  const relied = zeroMod4Reliance(expr, zero, assignments);
  if (relied === null) return false;
  if (need) for (const index of relied) need(index);
  return true;
}

/**
 * The locals the proof that `expr` ≡ 0 mod 4 relies on, or null when there is none. One visit per
 * node: label expressions are long `or` chains, and trying each operand twice (once to test, once
 * to record) would be exponential in their depth.
 */
function zeroMod4Reliance(expr: Expr, zero: Set<number>, assignments: Map<number, Expr[]>): number[] | null {
  if (typeOf(expr) !== binaryen.i32) return null;
  const id = idOf(expr);
  if (id === Id.Const) return (Const.getValueI32(expr) & 3) === 0 ? [] : null;
  if (id === Id.LocalGet) {
    const index = LocalGet.getIndex(expr);
    return assignments.has(index) && !zero.has(index) ? null : [index];
  }
  if (id === Id.LocalSet) return zeroMod4Reliance(LocalSet.getValue(expr), zero, assignments);
  if (id !== Id.Binary) return null;
  const op = Binary.getOp(expr);
  const left = Binary.getLeft(expr);
  const right = Binary.getRight(expr);
  if (op === Op.AddInt32 || op === Op.SubInt32 || op === Op.OrInt32 || op === Op.XorInt32) {
    const l = zeroMod4Reliance(left, zero, assignments);
    if (l === null) return null;
    const r = zeroMod4Reliance(right, zero, assignments);
    return r === null ? null : l.concat(r);
  }
  // Either operand zero suffices: rely on the first that is.
  if (op === Op.MulInt32 || op === Op.AndInt32)
    return zeroMod4Reliance(left, zero, assignments) ?? zeroMod4Reliance(right, zero, assignments);
  if (op === Op.ShlInt32) {
    if (idOf(right) === Id.Const && (Const.getValueI32(right) & 31) >= 2) return [];
    return zeroMod4Reliance(left, zero, assignments);
  }
  return null;
}

/** In `copy` (of `original`), replaces the checks in `eligible` by their aligned arm. */
function replaceChecks(original: Expr, copy: Expr, eligible: Set<Expr>, checks: AlignmentChecks): void {
  walkCopyInStep(original, copy, (from, slot) => {
    let to = slot.expr;
    if (eligible.has(from)) {
      if (idOf(to) !== Id.If) throw new Error('internal: loop copy differs from the original');
      to = If.getIfFalse(to);
      slot.replace(to);
      if (checks.isLabelLoad(from)) checks.markLabelLoad(to);
      return true;
    }
    if (checks.isLabelLoad(from)) checks.markLabelLoad(to);
    if (checks.isAlignmentCheck(from)) checks.markAlignmentCheck(to);
    return false;
  });
}

/**
 * Walks `original` and its copy in step, calling `visit` with each original child and the copy's
 * slot for it; the children of a pair `visit` returns true for are not walked.
 */
export function walkCopyInStep(original: Expr, copy: Expr, visit: (from: Expr, slot: ChildSlot) => boolean): void {
  const a = childSlots(original);
  const c = childSlots(copy);
  if (a.length !== c.length) throw new Error('internal: loop copy differs from the original');
  for (let i = 0; i < a.length; i++) {
    const from = a[i]!.expr;
    const slot = c[i]!;
    if (!visit(from, slot)) walkCopyInStep(from, slot.expr, visit);
  }
}

let renameCounter = 0;

/** Gives the labels defined inside `root` fresh names (Binaryen IR needs names unique per function). */
export function renameLabels(root: Expr): void {
  const renamed = new Map<string, string>();
  walk(root, (expr) => {
    const id = idOf(expr);
    if (id === Id.Block) {
      const name = Block.getName(expr);
      if (name) {
        const fresh = `${name}$aligned${renameCounter++}`;
        renamed.set(name, fresh);
        Block.setName(expr, fresh);
      }
    } else if (id === Id.Loop) {
      const name = Loop.getName(expr);
      if (name) {
        const fresh = `${name}$aligned${renameCounter++}`;
        renamed.set(name, fresh);
        Loop.setName(expr, fresh);
      }
    }
  });
  walk(root, (expr) => {
    const id = idOf(expr);
    if (id === Id.Break) {
      const fresh = renamed.get(Break.getName(expr));
      if (fresh) Break.setName(expr, fresh);
    } else if (id === Id.Switch) {
      const names = Switch.getNames(expr);
      names.forEach((name, i) => {
        const fresh = renamed.get(name);
        if (fresh) Switch.setNameAt(expr, i, fresh);
      });
      const fresh = renamed.get(Switch.getDefaultName(expr));
      if (fresh) Switch.setDefaultName(expr, fresh);
    }
  });
}

/** Whether the tree at `root` has fewer than `limit` nodes (stops counting at the limit: big functions are common). */
function smallerThan(root: Expr, limit: number): boolean {
  const stack = [root];
  let nodes = 0;
  while (stack.length > 0) {
    if (++nodes >= limit) return false;
    stack.push(...children(stack.pop()!));
  }
  return true;
}

function walk(root: Expr, visit: (expr: Expr) => void): void {
  const stack = [root];
  while (stack.length > 0) {
    const expr = stack.pop()!;
    visit(expr);
    for (const slot of childSlots(expr)) stack.push(slot.expr);
  }
}
