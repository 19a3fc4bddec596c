// Static facts about loops and indirect calls, computed on the original module:
//
// - Constant trip counts. A loop's trip count is a compile-time constant when its exit decisions
//   depend only on locals whose values are known at every iteration. We prove it by abstract
//   execution: constant propagation over the function (locals only; params, memory, globals that
//   can change, call results are unknown) gives the locals' values at the loop's entry, then the
//   loop body is executed iteration by iteration on that abstract state. Every iteration must either
//   certainly continue (all paths reach a back-edge) or certainly leave (all paths leave by a branch
//   out, a return or falling off the end); an iteration where both are possible (an exit or a
//   back-edge under an unknown condition) makes the loop non-constant. Conditions inside the body
//   that do not decide the loop's end may be unknown: both arms run and the states are joined, so a
//   local written under an unknown condition becomes unknown. Loops nested in the analysed loop run
//   to a fixpoint (their effect on the state, not their iterations). Calls cannot write a caller's
//   locals, so they only make their results unknown. Traps are not exits.
//   The simulation has a step budget; a loop that needs more is reported as not constant.
// - Indirect call candidates: the functions of a call_indirect's table whose signature matches the
//   call, or null when the table's contents can change at run time (imported or exported table,
//   table.set / table.grow anywhere in the module).
import binaryen from 'binaryen';
import {
  Block,
  Break,
  Call,
  CallIndirect,
  Const,
  Func,
  GlobalGet,
  Id,
  If,
  LocalGet,
  LocalSet,
  Loop,
  Select,
  Switch,
  Binary,
  Unary,
  Store,
  childSlots,
  expandType,
  idOf,
  runtimeNumber,
  typeOf,
  walkPostOrder,
  type Expr,
} from './ir.js';
import { frameSlots, type FrameSlots } from './static-frame.js';
import { stackPointerGlobal } from './passes/taint-frame.js';

const TOP = Symbol('unknown');
type Val = number | bigint | typeof TOP;
type State = Val[];

type Node =
  | { t: 'block'; label: string | null; kids: Node[] }
  | { t: 'loop'; label: string; body: Node; expr: Expr }
  | { t: 'if'; cond: Node; yes: Node; no: Node | null }
  | { t: 'br'; label: string; cond: Node | null; value: Node | null }
  | { t: 'switch'; labels: string[]; fallback: string; cond: Node; value: Node | null }
  | { t: 'get'; index: number }
  | { t: 'set'; index: number; value: Node; tee: boolean }
  | { t: 'const'; value: Val }
  | { t: 'unary'; op: number; value: Node }
  | { t: 'binary'; op: number; left: Node; right: Node }
  | { t: 'select'; yes: Node; no: Node; cond: Node }
  | { t: 'exit'; kids: Node[] }
  /** Evaluates its kids, then forgets the frame slots (state entries from `from` on): a call or store may write them. */
  | { t: 'clobber'; kids: Node[]; from: number }
  /**
   * A store through an indexed frame address (`a[i]` of a local array): evaluates `first`, `second`
   * (the address's operands) and `value`, then forgets the slots (state entries `from` + slot) that
   * the bytes at `at` + index may overlap — all of them when the index is unknown.
   */
  | {
      t: 'frameStore';
      first: Node;
      second: Node;
      indexFirst: boolean;
      value: Node;
      at: number;
      bytes: number;
      from: number;
      slots: FrameSlots['slots'];
    }
  | { t: 'trap' }
  | { t: 'other'; kids: Node[] };

/** Per-loop step budget (expression evaluations) and per-module budget. */
const LOOP_STEPS = 250_000;
const MODULE_STEPS = 5_000_000;
const MAX_TRIPS = 1 << 20;

export interface StaticTripOptions {
  loopSteps?: number;
  moduleSteps?: number;
}

/** Constant trip counts for the loops of one module; shares the module step budget across calls. */
export class TripCounter {
  private budget: number;
  private readonly loopSteps: number;
  private readonly globals = new Map<string, Val>();
  private readonly stackPointer: string | null;

  constructor(module: binaryen.Module, options: StaticTripOptions = {}) {
    this.budget = options.moduleSteps ?? MODULE_STEPS;
    this.loopSteps = options.loopSteps ?? LOOP_STEPS;
    for (let i = 0; i < module.getNumGlobals(); i++) {
      const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
      if (info.mutable || info.module || !info.init) continue;
      const init = constValue(info.init);
      if (init !== TOP) this.globals.set(info.name, init);
    }
    // An exported immutable global is still constant; an imported one is not known (skipped above).
    this.stackPointer = stackPointerGlobal(module);
  }

  /**
   * Source-level iterations per entry of each loop (in `loopExprs` order), or null when not proven
   * constant. `topTested[i]`: loop i's header runs once more per entry than its body.
   */
  tripCounts(func: number, loopExprs: Expr[], topTested: boolean[]): Array<number | null> {
    const out: Array<number | null> = loopExprs.map(() => null);
    const body = Func.getBody(func);
    if (!body || loopExprs.length === 0 || this.budget <= 0) return out;
    const params = expandType(Func.getParams(func)).length;
    const locals = Func.getNumLocals(func);
    let tree: Node;
    let frame: FrameSlots;
    try {
      frame = frameSlots(body, params, this.stackPointer);
      tree = lower(body, this.globals, frame, locals);
    } catch {
      return out;
    }
    const loops = new Map<Expr, Extract<Node, { t: 'loop' }>>();
    const collect = (n: Node): void => {
      if (n.t === 'loop') loops.set(n.expr, n);
      for (const k of kidsOf(n)) collect(k);
    };
    collect(tree);
    // Locals: parameters unknown, declared locals start at zero (numeric types we track); frame slots unknown.
    const entry: State = [];
    for (let i = 0; i < locals; i++) {
      if (i < params) entry.push(TOP);
      else {
        const type = Func.getVar(func, i - params);
        entry.push(type === binaryen.i32 ? 0 : type === binaryen.i64 ? 0n : TOP);
      }
    }
    for (let slot = 0; slot < frame.count; slot++) entry.push(TOP);
    const entries = new Map<Node, State>();
    const whole = new Interp(this.budget);
    whole.onLoop = (n, s) => {
      const seen = entries.get(n);
      entries.set(n, seen ? join(seen, s) : [...s]);
    };
    if (!whole.run(tree, entry)) return out;
    this.budget -= whole.steps;
    loopExprs.forEach((expr, i) => {
      const node = loops.get(expr);
      const start = node && entries.get(node);
      if (!node || !start || this.budget <= 0) return;
      const sim = new Interp(Math.min(this.loopSteps, this.budget));
      const headers = sim.simulate(node, start);
      this.budget -= sim.steps;
      if (headers === null) return;
      out[i] = topTested[i] ? headers - 1 : headers;
    });
    return out;
  }
}

class OutOfSteps extends Error {}

interface Target {
  state: State | null;
  value: Val | undefined;
}

class Interp {
  steps = 0;
  onLoop: ((n: Node, s: State) => void) | null = null;
  private targets = new Map<string, Target>();
  /** Set when a branch leaves the analysed region (unknown label) or the function returns. */
  private exited = false;

  constructor(private readonly limit: number) {}

  run(tree: Node, entry: State): boolean {
    try {
      this.eval(tree, [...entry]);
      return true;
    } catch (error) {
      if (error instanceof OutOfSteps) return false;
      throw error;
    }
  }

  /** Header executions per entry when every iteration's exit decision is known, else null. */
  simulate(loop: Extract<Node, { t: 'loop' }>, entry: State): number | null {
    try {
      let state: State = [...entry];
      for (let headers = 1; headers <= MAX_TRIPS; headers++) {
        this.targets = new Map([[loop.label, { state: null, value: undefined }]]);
        this.exited = false;
        const after = this.eval(loop.body, state).s;
        const back = this.targets.get(loop.label)!.state;
        const leaves = this.exited || after !== null;
        if (leaves && back) return null;
        if (leaves) return headers;
        if (!back) return null; // every path traps
        state = back;
      }
      return null;
    } catch (error) {
      if (error instanceof OutOfSteps) return null;
      throw error;
    }
  }

  private branch(label: string, s: State, value: Val | undefined): void {
    const target = this.targets.get(label);
    if (!target) {
      this.exited = true;
      return;
    }
    target.state = target.state ? join(target.state, s) : [...s];
    if (value !== undefined) target.value = target.value === undefined ? value : joinVal(target.value, value);
  }

  private eval(n: Node, s: State): { s: State | null; v: Val } {
    if (++this.steps > this.limit) throw new OutOfSteps();
    switch (n.t) {
      case 'const':
        return { s, v: n.value };
      case 'get':
        return { s, v: s[n.index] ?? TOP };
      case 'set': {
        const r = this.eval(n.value, s);
        if (!r.s) return r;
        r.s[n.index] = r.v;
        return { s: r.s, v: n.tee ? r.v : TOP };
      }
      case 'unary': {
        const r = this.eval(n.value, s);
        return { s: r.s, v: unary(n.op, r.v) };
      }
      case 'binary': {
        const l = this.eval(n.left, s);
        if (!l.s) return l;
        const r = this.eval(n.right, l.s);
        return { s: r.s, v: binary(n.op, l.v, r.v) };
      }
      case 'select': {
        const a = this.eval(n.yes, s);
        if (!a.s) return a;
        const b = this.eval(n.no, a.s);
        if (!b.s) return b;
        const c = this.eval(n.cond, b.s);
        const v = c.v === TOP ? joinVal(a.v, b.v) : truthy(c.v) ? a.v : b.v;
        return { s: c.s, v };
      }
      case 'block': {
        const saved = n.label ? this.targets.get(n.label) : undefined;
        if (n.label) this.targets.set(n.label, { state: null, value: undefined });
        let cur: State | null = s;
        let v: Val = TOP;
        for (const kid of n.kids) {
          if (!cur) break;
          const r = this.eval(kid, cur);
          cur = r.s;
          v = r.v;
        }
        if (n.label) {
          const t = this.targets.get(n.label)!;
          if (saved) this.targets.set(n.label, saved);
          else this.targets.delete(n.label);
          if (t.state) {
            const joined = cur ? join(cur, t.state) : t.state;
            const value = t.value === undefined ? (cur ? v : TOP) : cur ? joinVal(v, t.value) : t.value;
            return { s: joined, v: value };
          }
        }
        return { s: cur, v: cur ? v : TOP };
      }
      case 'if': {
        const c = this.eval(n.cond, s);
        if (!c.s) return c;
        if (c.v !== TOP) {
          if (truthy(c.v)) return this.eval(n.yes, c.s);
          return n.no ? this.eval(n.no, c.s) : { s: c.s, v: TOP };
        }
        const a = this.eval(n.yes, [...c.s]);
        const b = n.no ? this.eval(n.no, [...c.s]) : { s: c.s, v: TOP as Val };
        if (!a.s) return b;
        if (!b.s) return a;
        return { s: join(a.s, b.s), v: joinVal(a.v, b.v) };
      }
      case 'loop': {
        this.onLoop?.(n, s);
        const saved = this.targets.get(n.label);
        let header: State = [...s];
        let result: { s: State | null; v: Val };
        for (;;) {
          this.targets.set(n.label, { state: null, value: undefined });
          result = this.eval(n.body, [...header]);
          const back = this.targets.get(n.label)!.state;
          const next = back ? join(header, back) : header;
          if (sameState(next, header)) break;
          header = next;
        }
        if (saved) this.targets.set(n.label, saved);
        else this.targets.delete(n.label);
        return result;
      }
      case 'br': {
        let cur: State | null = s;
        let value: Val | undefined;
        if (n.value) {
          const r = this.eval(n.value, cur);
          cur = r.s;
          value = r.v;
        }
        if (!cur) return { s: null, v: TOP };
        if (!n.cond) {
          this.branch(n.label, cur, value);
          return { s: null, v: TOP };
        }
        const c = this.eval(n.cond, cur);
        if (!c.s) return c;
        if (c.v === TOP || truthy(c.v)) this.branch(n.label, c.s, value);
        if (c.v !== TOP && truthy(c.v)) return { s: null, v: TOP };
        return { s: c.s, v: value ?? TOP };
      }
      case 'switch': {
        let cur: State | null = s;
        let value: Val | undefined;
        if (n.value) {
          const r = this.eval(n.value, cur);
          cur = r.s;
          value = r.v;
        }
        if (!cur) return { s: null, v: TOP };
        const c = this.eval(n.cond, cur);
        if (!c.s) return c;
        if (c.v === TOP) for (const label of new Set([...n.labels, n.fallback])) this.branch(label, c.s, value);
        else {
          const index = Number(BigInt.asUintN(32, BigInt(c.v)));
          this.branch(index < n.labels.length ? n.labels[index]! : n.fallback, c.s, value);
        }
        return { s: null, v: TOP };
      }
      case 'exit': {
        let cur: State | null = s;
        for (const kid of n.kids) {
          if (!cur) break;
          cur = this.eval(kid, cur).s;
        }
        if (cur) this.exited = true;
        return { s: null, v: TOP };
      }
      case 'trap':
        return { s: null, v: TOP };
      case 'clobber': {
        let cur: State | null = s;
        for (const kid of n.kids) {
          if (!cur) break;
          cur = this.eval(kid, cur).s;
        }
        if (cur) cur.fill(TOP, n.from);
        return { s: cur, v: TOP };
      }
      case 'frameStore': {
        const a = this.eval(n.first, s);
        if (!a.s) return a;
        const b = this.eval(n.second, a.s);
        if (!b.s) return b;
        const v = this.eval(n.value, b.s);
        if (!v.s) return v;
        const index = n.indexFirst ? a.v : b.v;
        const lo = typeof index === 'number' ? (n.at + index) | 0 : null;
        n.slots.forEach((slot, k) => {
          // Unsigned distances: the ranges [lo, lo + bytes) and [address, address + width) meet (mod 2^32).
          if (lo === null || (lo - slot.address) >>> 0 < slot.bytes || (slot.address - lo) >>> 0 < n.bytes)
            v.s![n.from + k] = TOP;
        });
        return { s: v.s, v: TOP };
      }
      case 'other': {
        let cur: State | null = s;
        for (const kid of n.kids) {
          if (!cur) break;
          cur = this.eval(kid, cur).s;
        }
        return { s: cur, v: TOP };
      }
    }
  }
}

function kidsOf(n: Node): Node[] {
  switch (n.t) {
    case 'block':
    case 'exit':
    case 'clobber':
    case 'other':
      return n.kids;
    case 'frameStore':
      return [n.first, n.second, n.value];
    case 'loop':
      return [n.body];
    case 'if':
      return n.no ? [n.cond, n.yes, n.no] : [n.cond, n.yes];
    case 'br':
      return [n.value, n.cond].filter((k): k is Node => k !== null);
    case 'switch':
      return n.value ? [n.value, n.cond] : [n.cond];
    case 'set':
    case 'unary':
      return [n.value];
    case 'binary':
      return [n.left, n.right];
    case 'select':
      return [n.yes, n.no, n.cond];
    default:
      return [];
  }
}

function constValue(expr: Expr): Val {
  if (idOf(expr) !== Id.Const) return TOP;
  const type = typeOf(expr);
  if (type === binaryen.i32) return Const.getValueI32(expr) | 0;
  if (type === binaryen.i64) return BigInt.asIntN(64, BigInt(Const.getValueI64(expr)));
  return TOP;
}

/** Expressions that may write memory (besides stores and calls): they clobber the frame when it escapes. */
const WRITES_MEMORY = new Set([Id.MemoryCopy, Id.MemoryFill, Id.MemoryInit, Id.SIMDLoadStoreLane]);

/**
 * Binaryen IR → a plain tree the interpreter walks fast (binaryen.js getters are slow). Frame
 * slots (static-frame.ts) become state entries after the `locals` locals.
 */
function lower(root: Expr, globals: Map<string, Val>, frame: FrameSlots, locals: number): Node {
  const clobbering = (kids: Node[]): Node =>
    frame.escapes && frame.count > 0 ? { t: 'clobber', kids, from: locals } : { t: 'other', kids };
  const go = (e: Expr): Node => {
    const id = idOf(e);
    const kids = () => childSlots(e).map((slot) => go(slot.expr));
    const slot = frame.slotOf.get(e);
    switch (id) {
      case Id.Load:
        return slot !== undefined ? { t: 'get', index: locals + slot } : { t: 'other', kids: kids() };
      case Id.Store:
        if (slot !== undefined) return { t: 'set', index: locals + slot, value: go(Store.getValue(e)), tee: false };
        if (frame.indexed.has(e)) {
          const { at, base, index, indexFirst } = frame.indexed.get(e)!;
          const [first, second] = indexFirst ? [go(index), go(base)] : [go(base), go(index)];
          const bytes = Store.getBytes(e);
          return {
            t: 'frameStore',
            first,
            second,
            indexFirst,
            value: go(Store.getValue(e)),
            at,
            bytes,
            from: locals,
            slots: frame.slots,
          };
        }
        return frame.untracked.has(e) ? { t: 'other', kids: kids() } : clobbering(kids());
      case Id.Block:
        return { t: 'block', label: Block.getName(e) || null, kids: kids() };
      case Id.Loop:
        return { t: 'loop', label: Loop.getName(e) ?? '', body: go(Loop.getBody(e)), expr: e };
      case Id.If: {
        const no = If.getIfFalse(e);
        return { t: 'if', cond: go(If.getCondition(e)), yes: go(If.getIfTrue(e)), no: no ? go(no) : null };
      }
      case Id.Break: {
        const value = Break.getValue(e);
        const cond = Break.getCondition(e);
        return { t: 'br', label: Break.getName(e), value: value ? go(value) : null, cond: cond ? go(cond) : null };
      }
      case Id.Switch: {
        const value = Switch.getValue(e);
        return {
          t: 'switch',
          labels: [...Switch.getNames(e)],
          fallback: Switch.getDefaultName(e),
          value: value ? go(value) : null,
          cond: go(Switch.getCondition(e)),
        };
      }
      case Id.LocalGet:
        return { t: 'get', index: LocalGet.getIndex(e) };
      case Id.LocalSet:
        return { t: 'set', index: LocalSet.getIndex(e), value: go(LocalSet.getValue(e)), tee: LocalSet.isTee(e) };
      case Id.Const:
        return { t: 'const', value: constValue(e) };
      case Id.GlobalGet: {
        const v = globals.get(GlobalGet.getName(e));
        return v === undefined ? { t: 'other', kids: [] } : { t: 'const', value: v };
      }
      case Id.Unary:
        return { t: 'unary', op: Unary.getOp(e), value: go(Unary.getValue(e)) };
      case Id.Binary:
        return { t: 'binary', op: Binary.getOp(e), left: go(Binary.getLeft(e)), right: go(Binary.getRight(e)) };
      case Id.Select:
        return {
          t: 'select',
          yes: go(Select.getIfTrue(e)),
          no: go(Select.getIfFalse(e)),
          cond: go(Select.getCondition(e)),
        };
      case Id.Return:
        return { t: 'exit', kids: kids() };
      case Id.Unreachable:
        return { t: 'trap' }; // ends the path; not an exit
      case Id.Call:
        return Call.isReturn(e) ? { t: 'exit', kids: kids() } : clobbering(kids());
      case Id.CallIndirect:
        return CallIndirect.isReturn(e) ? { t: 'exit', kids: kids() } : clobbering(kids());
      default:
        return WRITES_MEMORY.has(id) ? clobbering(kids()) : { t: 'other', kids: kids() };
    }
  };
  return go(root);
}

const op = runtimeNumber;

const I32 = {
  add: op('AddInt32'),
  sub: op('SubInt32'),
  mul: op('MulInt32'),
  and: op('AndInt32'),
  or: op('OrInt32'),
  xor: op('XorInt32'),
  shl: op('ShlInt32'),
  shrS: op('ShrSInt32'),
  shrU: op('ShrUInt32'),
  divS: op('DivSInt32'),
  divU: op('DivUInt32'),
  remS: op('RemSInt32'),
  remU: op('RemUInt32'),
  eq: op('EqInt32'),
  ne: op('NeInt32'),
  ltS: op('LtSInt32'),
  ltU: op('LtUInt32'),
  leS: op('LeSInt32'),
  leU: op('LeUInt32'),
  gtS: op('GtSInt32'),
  gtU: op('GtUInt32'),
  geS: op('GeSInt32'),
  geU: op('GeUInt32'),
};
const I64 = {
  add: op('AddInt64'),
  sub: op('SubInt64'),
  mul: op('MulInt64'),
  and: op('AndInt64'),
  or: op('OrInt64'),
  xor: op('XorInt64'),
  shl: op('ShlInt64'),
  shrS: op('ShrSInt64'),
  shrU: op('ShrUInt64'),
  divS: op('DivSInt64'),
  divU: op('DivUInt64'),
  remS: op('RemSInt64'),
  remU: op('RemUInt64'),
  eq: op('EqInt64'),
  ne: op('NeInt64'),
  ltS: op('LtSInt64'),
  ltU: op('LtUInt64'),
  leS: op('LeSInt64'),
  leU: op('LeUInt64'),
  gtS: op('GtSInt64'),
  gtU: op('GtUInt64'),
  geS: op('GeSInt64'),
  geU: op('GeUInt64'),
};

function binary(code: number, a: Val, b: Val): Val {
  if (a === TOP || b === TOP) {
    // x * 0, x & 0 are known whatever x is; everything else needs both operands.
    if ((code === I32.mul || code === I32.and) && (a === 0 || b === 0)) return 0;
    return TOP;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    const u = (x: number) => x >>> 0;
    switch (code) {
      case I32.add:
        return (a + b) | 0;
      case I32.sub:
        return (a - b) | 0;
      case I32.mul:
        return Math.imul(a, b);
      case I32.and:
        return a & b;
      case I32.or:
        return a | b;
      case I32.xor:
        return a ^ b;
      case I32.shl:
        return a << (b & 31);
      case I32.shrS:
        return a >> (b & 31);
      case I32.shrU:
        return (a >>> (b & 31)) | 0;
      case I32.divS:
        return b === 0 || (a === -0x80000000 && b === -1) ? TOP : (a / b) | 0;
      case I32.divU:
        return b === 0 ? TOP : (u(a) / u(b)) | 0;
      case I32.remS:
        return b === 0 ? TOP : (a % b) | 0;
      case I32.remU:
        return b === 0 ? TOP : (u(a) % u(b)) | 0;
      case I32.eq:
        return a === b ? 1 : 0;
      case I32.ne:
        return a !== b ? 1 : 0;
      case I32.ltS:
        return a < b ? 1 : 0;
      case I32.ltU:
        return u(a) < u(b) ? 1 : 0;
      case I32.leS:
        return a <= b ? 1 : 0;
      case I32.leU:
        return u(a) <= u(b) ? 1 : 0;
      case I32.gtS:
        return a > b ? 1 : 0;
      case I32.gtU:
        return u(a) > u(b) ? 1 : 0;
      case I32.geS:
        return a >= b ? 1 : 0;
      case I32.geU:
        return u(a) >= u(b) ? 1 : 0;
      default:
        return TOP;
    }
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const s = (x: bigint) => BigInt.asIntN(64, x);
    const u = (x: bigint) => BigInt.asUintN(64, x);
    switch (code) {
      case I64.add:
        return s(a + b);
      case I64.sub:
        return s(a - b);
      case I64.mul:
        return s(a * b);
      case I64.and:
        return s(a & b);
      case I64.or:
        return s(a | b);
      case I64.xor:
        return s(a ^ b);
      case I64.shl:
        return s(a << (b & 63n));
      case I64.shrS:
        return s(a >> (b & 63n));
      case I64.shrU:
        return s(u(a) >> (b & 63n));
      case I64.divS:
        return b === 0n || (a === -(1n << 63n) && b === -1n) ? TOP : s(a / b);
      case I64.divU:
        return b === 0n ? TOP : s(u(a) / u(b));
      case I64.remS:
        return b === 0n ? TOP : s(a % b);
      case I64.remU:
        return b === 0n ? TOP : s(u(a) % u(b));
      case I64.eq:
        return a === b ? 1 : 0;
      case I64.ne:
        return a !== b ? 1 : 0;
      case I64.ltS:
        return a < b ? 1 : 0;
      case I64.ltU:
        return u(a) < u(b) ? 1 : 0;
      case I64.leS:
        return a <= b ? 1 : 0;
      case I64.leU:
        return u(a) <= u(b) ? 1 : 0;
      case I64.gtS:
        return a > b ? 1 : 0;
      case I64.gtU:
        return u(a) > u(b) ? 1 : 0;
      case I64.geS:
        return a >= b ? 1 : 0;
      case I64.geU:
        return u(a) >= u(b) ? 1 : 0;
      default:
        return TOP;
    }
  }
  return TOP;
}

const U = {
  eqz32: op('EqZInt32'),
  eqz64: op('EqZInt64'),
  extendS: op('ExtendSInt32'),
  extendU: op('ExtendUInt32'),
  extend8: op('ExtendS8Int32'),
  extend16: op('ExtendS16Int32'),
  wrap: op('WrapInt64'),
};

function unary(code: number, a: Val): Val {
  if (a === TOP) return TOP;
  if (typeof a === 'number') {
    switch (code) {
      case U.eqz32:
        return a === 0 ? 1 : 0;
      case U.extendS:
        return BigInt(a);
      case U.extendU:
        return BigInt(a >>> 0);
      case U.extend8:
        return (a << 24) >> 24;
      case U.extend16:
        return (a << 16) >> 16;
      default:
        return TOP;
    }
  }
  if (code === U.eqz64) return a === 0n ? 1 : 0;
  if (code === U.wrap) return Number(BigInt.asIntN(32, a));
  return TOP;
}

const truthy = (v: number | bigint) => v !== 0 && v !== 0n;
const joinVal = (a: Val, b: Val): Val => (a === b ? a : TOP);

function join(a: State, b: State): State {
  return a.map((v, i) => joinVal(v, b[i]!));
}

function sameState(a: State, b: State): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Candidate callees of each call_indirect (internal function names), or null for every call when
 * the module's tables can change at run time. Calls through a table nobody can change resolve to
 * the functions of its element segments whose signature equals the call's.
 */
export function indirectCallCandidates(
  module: binaryen.Module,
  calls: Expr[],
  functionBodies: Expr[],
): Array<string[] | null> {
  if (calls.length === 0) return [];
  const changing = new Set<string>();
  for (let i = 0; i < module.getNumTables(); i++) {
    const info = binaryen.getTableInfo(module.getTableByIndex(i));
    if (info.module) changing.add(info.name);
  }
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalTable) changing.add(info.value);
  }
  let anyWrite = false;
  for (const body of functionBodies) {
    walkPostOrder(body, (e) => {
      const id = idOf(e);
      if (id === Id.TableSet || id === Id.TableGrow) anyWrite = true;
    });
    if (anyWrite) break;
  }
  const segments = new Map<string, string[]>();
  try {
    const count = module.getNumElementSegments();
    for (let i = 0; i < count; i++) {
      const info = binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i));
      if (!info.table) continue; // passive: only table.init puts it in a table (unsupported instruction)
      segments.set(info.table, [...(segments.get(info.table) ?? []), ...info.data]);
    }
  } catch {
    return calls.map(() => null); // segments binaryen.js cannot describe: candidates unknown
  }
  // Each table's functions grouped by signature once: per call this was a scan of the whole table
  // (a C++ program's vtables: thousands of entries times tens of thousands of indirect calls).
  const bySignature = new Map<string, Map<string, string[]>>();
  const groupsOf = (table: string) => {
    let groups = bySignature.get(table);
    if (groups) return groups;
    bySignature.set(table, (groups = new Map()));
    for (const name of new Set(segments.get(table) ?? [])) {
      const func = module.getFunction(name);
      if (!func) continue;
      const info = binaryen.getFunctionInfo(func);
      const key = `${info.params}:${info.results}`;
      const group = groups.get(key);
      if (group) group.push(name);
      else groups.set(key, [name]);
    }
    return groups;
  };
  return calls.map((call) => {
    const table = CallIndirect.getTable(call);
    if (anyWrite || changing.has(table)) return null;
    return groupsOf(table).get(`${CallIndirect.getParams(call)}:${CallIndirect.getResults(call)}`) ?? [];
  });
}
