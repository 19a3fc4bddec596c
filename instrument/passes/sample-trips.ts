// Counted innermost loops for the sampling pass (issue 27): a loop whose body is one straight-line
// region ending in its only back edge, `br_if $loop (i ⋈ n)`, where `i` is stepped once per
// iteration by ±2^p (passes/loops-induction.ts) and `n` is a constant or a local the loop does not
// write, runs a number of iterations known on entry. Its countdown checks can then be charged at
// once: on entry the trip count T is computed, and if the countdown stays non-negative after
// T · (the body's instructions), no check in the loop would have fired — the countdown is lowered
// by that much and a copy of the original loop runs, with nothing around it (wholeRunAtEntry; for
// loops without calls). Otherwise (a sample falls due inside, or the count could not be trusted: an
// `i != n` the step never reaches, an `i < n` whose last step would wrap) the checked loop runs,
// fast-forwarding through an unchecked copy up to the iteration a sample falls in (fastForward).
// Either way the countdown leaves the loop with the value the checked loop gives it, so the samples
// are the ones the checked loop alone would take.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Break,
  Call,
  Const,
  Id,
  LocalGet,
  LocalSet,
  Loop,
  addVar,
  i64Const,
  idOf,
  typeOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';
import { inductionCandidates, type Induction } from './loops-induction.js';
import { STRAIGHT } from '../direct-leaves.js';

/** The loop continues while `i ⋈ bound`, `i` read after its step. */
type Continues = 'ne' | 'lt' | 'le' | 'gt' | 'ge';

export interface CountedLoop {
  loop: Expr;
  induction: Induction;
  bound: { constant: number } | { local: number };
  continues: Continues;
  signed: boolean;
  /** Which operand of the back edge's comparison is the stepped induction (0 left, 1 right; null: the condition is the induction, compared with 0). */
  side: 0 | 1 | null;
}

/** Comparison → what it says with the induction on the left (`signed` per comparison). */
const COMPARES = new Map<number, { left: Continues; right: Continues; signed: boolean }>([
  [binaryen.NeInt32, { left: 'ne', right: 'ne', signed: false }],
  [binaryen.LtSInt32, { left: 'lt', right: 'gt', signed: true }],
  [binaryen.LtUInt32, { left: 'lt', right: 'gt', signed: false }],
  [binaryen.LeSInt32, { left: 'le', right: 'ge', signed: true }],
  [binaryen.LeUInt32, { left: 'le', right: 'ge', signed: false }],
  [binaryen.GtSInt32, { left: 'gt', right: 'lt', signed: true }],
  [binaryen.GtUInt32, { left: 'gt', right: 'lt', signed: false }],
  [binaryen.GeSInt32, { left: 'ge', right: 'le', signed: true }],
  [binaryen.GeUInt32, { left: 'ge', right: 'le', signed: false }],
]);

/**
 * `loop`'s counted form, or null when its trip count is not known on entry. `folded` names the
 * callees that carry no code (their instructions are counted in the calling region): a call of one
 * is straight-line code.
 */
export function countedLoopOf(loop: Expr, folded: ReadonlyMap<string, number>): CountedLoop | null {
  const label = Loop.getName(loop);
  if (!label || typeOf(loop) !== binaryen.none) return null;
  const body = Loop.getBody(loop);
  const isBlock = idOf(body) === Id.Block;
  const last = isBlock ? Block.getChildAt(body, Block.getNumChildren(body) - 1) : body;
  if (!last || idOf(last) !== Id.Break || Break.getName(last) !== label || Break.getValue(last)) return null;
  const condition = Break.getCondition(last);
  if (!condition) return null;
  const written = new Set<number>();
  let straight = true;
  walkPostOrder(body, (expr) => {
    const id = idOf(expr);
    if (id === Id.LocalSet) written.add(LocalSet.getIndex(expr));
    if (id === Id.Call ? !folded.has(Call.getTarget(expr)) : id === Id.Break ? expr !== last : !STRAIGHT.has(id))
      straight = false;
    if (id === Id.Block && Block.getName(expr)) straight = false;
  });
  if (!straight) return null;
  const within = new Set<Expr>();
  walkPostOrder(condition, (expr) => within.add(expr));
  // `br_if $loop (i ⋈ n)`, or `br_if $loop i` (clang's count-down: i ≠ 0).
  const compare = idOf(condition) === Id.Binary ? COMPARES.get(Binary.getOp(condition)) : undefined;
  const sides = compare ? ([Binary.getLeft(condition), Binary.getRight(condition)] as const) : null;
  for (const induction of inductionCandidates(body)) {
    // The induction's value after its step: its tee in the comparison, or a read after the step.
    const stepped = (e: Expr) =>
      e === induction.set
        ? LocalSet.isTee(e)
        : idOf(e) === Id.LocalGet && LocalGet.getIndex(e) === induction.local && !within.has(induction.set);
    const boundOf = (e: Expr): CountedLoop['bound'] | null => {
      if (idOf(e) === Id.Const && typeOf(e) === binaryen.i32) return { constant: Const.getValueI32(e) };
      if (idOf(e) !== Id.LocalGet) return null;
      const local = LocalGet.getIndex(e);
      return written.has(local) ? null : { local };
    };
    if (!sides || !compare) {
      if (!stepped(condition)) continue;
      return { loop, induction, bound: { constant: 0 }, continues: 'ne', signed: false, side: null };
    }
    for (const side of [0, 1] as const) {
      const bound = boundOf(sides[1 - side]!);
      if (!stepped(sides[side]) || !bound) continue;
      const continues = side === 0 ? compare.left : compare.right;
      const upward = continues === 'lt' || continues === 'le';
      const downward = continues === 'gt' || continues === 'ge';
      if ((upward && induction.step < 0) || (downward && induction.step > 0)) return null;
      return { loop, induction, bound, continues, signed: compare.signed, side };
    }
  }
  return null;
}

interface TripLocals {
  distance: number;
  remaining: number;
  fit: number;
  /** The induction's value the unchecked copy stops at. */
  bound: number;
  /** Whether the unchecked copy runs every iteration left. */
  done: number;
}

/** A counted loop's trip count from a value its induction holds on entry. */
export interface StaticTrips {
  /** The induction's value on entry. */
  start: number;
  /** Iterations the loop runs from it. */
  trips: number;
  /** The induction's value after them. */
  end: number;
}

/** Most iterations a static trip count is worked out for (larger counts go the general way). */
const MAX_STATIC_TRIPS = 1 << 16;

/**
 * Per loop, the constant an i32 local holds when the loop is entered: set by the statement right
 * before it in its block (clang's `i = 0` before a counted loop).
 */
export function entryConstants(body: Expr): Map<Expr, { local: number; value: number }> {
  const found = new Map<Expr, { local: number; value: number }>();
  walkPostOrder(body, (expr) => {
    if (idOf(expr) !== Id.Block) return;
    for (let k = 1; k < Block.getNumChildren(expr); k++) {
      const loop = Block.getChildAt(expr, k);
      const before = Block.getChildAt(expr, k - 1);
      if (idOf(loop) !== Id.Loop || idOf(before) !== Id.LocalSet || LocalSet.isTee(before)) continue;
      const value = LocalSet.getValue(before);
      if (idOf(value) !== Id.Const || typeOf(value) !== binaryen.i32) continue;
      found.set(loop, { local: LocalSet.getIndex(before), value: Const.getValueI32(value) });
    }
  });
  return found;
}

/** The trips of `counted` entered with its induction at `start` (a constant bound only), by running its steps. */
export function staticTrips(counted: CountedLoop, start: number): StaticTrips | null {
  if (!('constant' in counted.bound)) return null;
  const bound = counted.bound.constant;
  const holds = (value: number): boolean => {
    const [a, b] = counted.signed ? [value | 0, bound | 0] : [value >>> 0, bound >>> 0];
    switch (counted.continues) {
      case 'ne':
        return a !== b;
      case 'lt':
        return a < b;
      case 'le':
        return a <= b;
      case 'gt':
        return a > b;
      case 'ge':
        return a >= b;
    }
  };
  let value = start | 0;
  for (let trips = 1; trips <= MAX_STATIC_TRIPS; trips++) {
    value = (value + counted.induction.step) | 0;
    if (!holds(value)) return { start: start | 0, trips, end: value };
  }
  return null;
}

/** Locals of one function its fast-forwards share, made on first use. */
export class TripScratch {
  private made: TripLocals | null = null;
  constructor(readonly func: number) {}
  get locals(): TripLocals {
    const i64 = binaryen.i64;
    this.made ??= {
      distance: addVar(this.func, i64),
      remaining: addVar(this.func, i64),
      fit: addVar(this.func, i64),
      bound: addVar(this.func, binaryen.i32),
      done: addVar(this.func, binaryen.i32),
    };
    return this.made;
  }
}

/**
 * Statements that leave in `scratch.locals.remaining` the iterations `counted` has left when an
 * iteration is about to start (R, from the induction's current value), and the condition under which
 * R can be trusted (an `i != n` the step reaches, an `i < n` whose last step does not wrap).
 */
function tripsLeft(
  module: binaryen.Module,
  counted: CountedLoop,
  scratch: TripScratch,
): { statements: Expr[]; trusted: Expr } {
  const { i32, i64 } = module;
  const { distance: A, remaining: R } = scratch.locals;
  const get = (local: number) => module.local.get(local, binaryen.i64);
  const c64 = (value: number) => i64Const(module, value);
  const { induction, bound, continues, signed } = counted;
  const now = () => module.local.get(induction.local, binaryen.i32);
  const limit = () => ('constant' in bound ? i32.const(bound.constant) : module.local.get(bound.local, binaryen.i32));
  const magnitude = Math.abs(induction.step);
  const shift = Math.log2(magnitude);
  const statements: Expr[] = [];
  let trusted: Expr;
  if (continues === 'ne') {
    // A = the distance to cover (mod 2^32); the step reaches it iff it is a multiple of the step.
    const distance = induction.step > 0 ? i32.sub(limit(), now()) : i32.sub(now(), limit());
    statements.push(module.local.set(A, i64.extend_u(distance)));
    const wrapped = () => i32.wrap(get(A));
    trusted = magnitude === 1 ? i32.const(1) : i32.eqz(i32.and(wrapped(), i32.const(magnitude - 1)));
    statements.push(
      module.local.set(
        R,
        i64.add(i64.extend_u(i32.shr_u(i32.sub(wrapped(), i32.const(magnitude)), i32.const(shift))), c64(1)),
      ),
    );
  } else {
    const extend = (value: Expr) => (signed ? i64.extend_s(value) : i64.extend_u(value));
    const upward = continues === 'lt' || continues === 'le';
    // A = how far the bound lies ahead in the step's direction; R = the first t ≥ 1 that passes it.
    const ahead = upward ? i64.sub(extend(limit()), extend(now())) : i64.sub(extend(now()), extend(limit()));
    statements.push(module.local.set(A, ahead));
    const strict = continues === 'lt' || continues === 'gt';
    statements.push(
      module.local.set(
        R,
        strict
          ? module.select(
              i64.le_s(get(A), c64(magnitude)),
              c64(1),
              i64.shr_u(i64.add(get(A), c64(magnitude - 1)), c64(shift)),
            )
          : module.select(i64.lt_s(get(A), c64(0)), c64(1), i64.add(i64.shr_u(get(A), c64(shift)), c64(1))),
      ),
    );
    // The last value the induction takes must not wrap (a wrapped value would keep the loop going).
    const last = (upward ? i64.add : i64.sub)(extend(now()), i64.mul(get(R), c64(magnitude)));
    trusted = upward
      ? i64.le_s(last, signed ? c64(0x7fffffff) : c64(0xffffffff))
      : i64.ge_s(last, signed ? c64(-0x80000000) : c64(0));
  }
  return { statements, trusted };
}

/**
 * The statement that goes first in the checked loop's body, before its header check: at the start
 * of an iteration, the iterations left (R, from the induction's current value) and the iterations
 * the countdown covers (Q = countdown ÷ perIteration) are computed; when Q ≥ 1 the unchecked
 * `copy` runs F = min(R, Q) of them and the countdown is charged F · perIteration at once. If
 * that was all of them, the loop is left (by `exitLabel`, a block around it); else the header
 * check that follows fires — a sample is due in this very iteration, as in the checked loop.
 * So only the iteration a sample falls in, and the fast-forward itself, run in the checked loop.
 * With `known` trips from the entry value (entryConstants, staticTrips), an iteration that starts
 * there and whose countdown covers them all skips the computation: it charges them and runs the copy.
 */
export function fastForward(
  module: binaryen.Module,
  counted: CountedLoop,
  copy: Expr,
  perIteration: number,
  countdown: number,
  scratch: TripScratch,
  exitLabel: string,
  known: StaticTrips | null = null,
): Expr {
  const { i32, i64 } = module;
  const { remaining: R, fit: F, bound: B, done: D } = scratch.locals;
  const get = (local: number) => module.local.get(local, binaryen.i64);
  const c64 = (value: number) => i64Const(module, value);
  const { induction } = counted;
  const now = () => module.local.get(induction.local, binaryen.i32);
  const { statements, trusted } = tripsLeft(module, counted, scratch);
  const countdownNow = () => module.local.get(countdown, binaryen.i32);
  statements.push(module.local.set(F, i64.div_s(i64.extend_s(countdownNow()), c64(perIteration))));
  const charge = known === null ? 0 : known.trips * perIteration;
  if (known !== null && charge <= 0x3fffffff) {
    const [skip, run, general] = [`${exitLabel}$skip`, `${exitLabel}$run`, `${exitLabel}$general`];
    const whole = module.block(general, [
      module.br(
        general,
        i32.eqz(i32.and(i32.eq(now(), i32.const(known.start)), i32.ge_s(countdownNow(), i32.const(charge)))),
      ),
      module.local.set(countdown, i32.sub(countdownNow(), i32.const(charge))),
      module.local.set(B, i32.const(known.end)),
      module.local.set(D, i32.const(1)),
      module.br(run),
    ]);
    const partial = [
      ...statements,
      module.br(skip, i32.eqz(i32.and(trusted, i64.ge_s(get(F), c64(1))))),
      module.local.set(F, module.select(i64.le_u(get(R), get(F)), get(R), get(F))),
      module.local.set(countdown, i32.sub(countdownNow(), i32.wrap(i64.mul(get(F), c64(perIteration))))),
      module.local.set(B, i32.add(now(), i32.mul(i32.wrap(get(F)), i32.const(induction.step)))),
      module.local.set(D, i64.eq(get(F), get(R))),
    ];
    return module.block(skip, [
      module.block(run, [whole, ...partial]),
      ...freshFloatReads(module, scratch.func, copy),
      copy,
      module.br(exitLabel, module.local.get(D, binaryen.i32)),
    ]);
  }
  statements.push(
    module.if(
      i32.and(trusted, i64.ge_s(get(F), c64(1))),
      module.block(
        null,
        [
          module.local.set(F, module.select(i64.le_u(get(R), get(F)), get(R), get(F))),
          module.local.set(countdown, i32.sub(countdownNow(), i32.wrap(i64.mul(get(F), c64(perIteration))))),
          module.local.set(B, i32.add(now(), i32.mul(i32.wrap(get(F)), i32.const(induction.step)))),
          ...freshFloatReads(module, scratch.func, copy),
          copy,
          module.br(exitLabel, i64.eq(get(F), get(R))),
        ],
        binaryen.none,
      ),
    ),
  );
  return module.block(null, statements, binaryen.none);
}

/**
 * An unchecked copy of `loop` under `label` that stops when the induction reaches the value in
 * `boundLocal` (the body holds no other label; the step itself stays in the condition if it was there).
 */
export function uncheckedCopy(module: binaryen.Module, counted: CountedLoop, label: string, boundLocal: number): Expr {
  const copy = module.copyExpression(counted.loop);
  Loop.setName(copy, label);
  const body = Loop.getBody(copy);
  const last = idOf(body) === Id.Block ? Block.getChildAt(body, Block.getNumChildren(body) - 1) : body;
  Break.setName(last, label);
  const condition = Break.getCondition(last);
  const stepped =
    counted.side === null ? condition : counted.side === 0 ? Binary.getLeft(condition) : Binary.getRight(condition);
  Break.setCondition(last, module.i32.ne(stepped, module.local.get(boundLocal, binaryen.i32)));
  return copy;
}

/** A copy of `loop` under `label`, otherwise unchanged (the body holds no other label). */
export function plainCopy(counted: CountedLoop, label: string, module: binaryen.Module): Expr {
  const copy = module.copyExpression(counted.loop);
  Loop.setName(copy, label);
  const body = Loop.getBody(copy);
  const last = idOf(body) === Id.Block ? Block.getChildAt(body, Block.getNumChildren(body) - 1) : body;
  Break.setName(last, label);
  return copy;
}

/**
 * The statement put right before the checked loop, in the block `exitLabel` around it: on entry,
 * when the countdown covers every iteration the loop will run (R · perIteration, R from the
 * induction's entry value, or `known` trips), no check inside would fire — the countdown is charged
 * at once and `plain`, a copy of the original loop with no wrapper and no check, runs instead; the
 * block is then left. Otherwise the checked loop runs with its per-iteration fast-forward. So the
 * loop TurboFan compiles for the common case is the original one, with nothing else live across it
 * but the countdown.
 */
export function wholeRunAtEntry(
  module: binaryen.Module,
  counted: CountedLoop,
  plain: Expr,
  perIteration: number,
  countdown: number,
  scratch: TripScratch,
  exitLabel: string,
  known: StaticTrips | null,
): Expr {
  const { i32, i64 } = module;
  const countdownNow = () => module.local.get(countdown, binaryen.i32);
  const fresh = freshFloatReads(module, scratch.func, plain);
  const run = (charge: Expr) =>
    module.block(null, [module.local.set(countdown, charge), ...fresh, plain, module.br(exitLabel)], binaryen.none);
  const charge = known === null ? 0 : known.trips * perIteration;
  if (known !== null && charge <= 0x3fffffff)
    return module.if(i32.ge_s(countdownNow(), i32.const(charge)), run(i32.sub(countdownNow(), i32.const(charge))));
  const { remaining: R } = scratch.locals;
  const { statements, trusted } = tripsLeft(module, counted, scratch);
  const cost = () => i64.mul(module.local.get(R, binaryen.i64), i64Const(module, perIteration));
  return module.block(
    null,
    [
      ...statements,
      module.if(
        i32.and(trusted, i64.ge_s(i64.extend_s(countdownNow()), cost())),
        run(i32.sub(countdownNow(), i32.wrap(cost()))),
      ),
    ],
    binaryen.none,
  );
}

/**
 * Gives each float local that `loop` reads and never writes a local of its own, set right before
 * the loop to `copysign(x, x)` — x bit for bit, NaNs included, and not folded away by V8 — and
 * returns those sets. Why: once a value is live across a call (every enclosing loop header's
 * check has one on its rare path), TurboFan's register allocator leaves it in its stack slot for
 * the rest of its range, and a float multiply may take that operand from memory, so an unchanged
 * copy of gemm's loop read `alpha` from the stack in every iteration (+4–5% on gemm -O2). A value
 * defined after the last call before the loop gets a register.
 */
export function freshFloatReads(module: binaryen.Module, func: number, loop: Expr): Expr[] {
  const written = new Set<number>();
  const reads: Expr[] = [];
  walkPostOrder(loop, (expr) => {
    const id = idOf(expr);
    if (id === Id.LocalSet) written.add(LocalSet.getIndex(expr));
    else if (id === Id.LocalGet && (typeOf(expr) === binaryen.f64 || typeOf(expr) === binaryen.f32)) reads.push(expr);
  });
  const renamed = new Map<number, number>();
  const sets: Expr[] = [];
  for (const read of reads) {
    const local = LocalGet.getIndex(read);
    if (written.has(local)) continue;
    const type = typeOf(read);
    let fresh = renamed.get(local);
    if (fresh === undefined) {
      fresh = addVar(func, type);
      renamed.set(local, fresh);
      const value = () => module.local.get(local, type);
      const f = type === binaryen.f64 ? module.f64 : module.f32;
      sets.push(module.local.set(fresh, f.copysign(value(), value())));
    }
    LocalGet.setIndex(read, fresh);
  }
  return sets;
}
