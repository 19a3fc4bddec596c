// Our own seeded random module generator (binaryen.js, so it runs anywhere, no wasm-opt needed).
//
// Modules look like Binaryen's `-ttf` output in the ways the harness relies on: `fuzzing-support`
// logging imports, every function exported, and a `hangLimitInitializer` export that refills a fuel
// global which every function entry and loop header spends (so nothing runs forever or recurses
// deeply). What they stress is what our passes rewrite: nested loops of every shape (top- and
// bottom-tested, left by br/br_if/br_table/return, values carried through), calls direct and
// indirect (including traps: null slot, signature mismatch), recursion, memory accesses near and past
// the end of memory, memory.grow/size, bulk memory, globals, locals of every type, traps of every kind.
import binaryen from 'binaryen';
import { Rng } from './rng.js';
import { SUPPORTED_FEATURES } from '../../instrument/module-io.js';
import { i64Const } from '../../instrument/ir.js';

type T = number;
const FUEL = 'fuel';

interface FuncSpec {
  name: string;
  params: T[];
  result: T;
}

interface Scope {
  spec: FuncSpec;
  locals: T[];
  /** Labels a `br` may target (all typeless here), innermost last. */
  labels: string[];
  depth: number;
}

export function generateModule(seed: number): Uint8Array {
  const module = new binaryen.Module();
  try {
    new Generator(module, new Rng(seed)).build();
    module.setFeatures(SUPPORTED_FEATURES);
    if (!module.validate()) throw new Error(`internal: fuzz generator produced an invalid module for seed ${seed}`);
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

export class Generator {
  private readonly types: T[] = [binaryen.i32, binaryen.i64, binaryen.f32, binaryen.f64];
  private funcs: FuncSpec[] = [];
  private globals: Array<{ name: string; type: T }> = [];
  private tableSize = 0;
  private memoryPages = 1;
  private labelCounter = 0;
  private useSimd = false;
  private budget = 0;

  constructor(
    private readonly m: binaryen.Module,
    private readonly rng: Rng,
  ) {}

  build(): void {
    const { m, rng } = this;
    for (const [name, type] of [
      ['log-i32', binaryen.i32],
      ['log-i64', binaryen.i64],
      ['log-f32', binaryen.f32],
      ['log-f64', binaryen.f64],
    ] as const) {
      m.addFunctionImport(name, 'fuzzing-support', name, type, binaryen.none);
    }
    this.useSimd = rng.chance(0.2);
    this.memoryPages = rng.range(0, 2);
    const hasMax = rng.chance(0.85);
    const max = hasMax ? this.memoryPages + rng.range(0, 3) : 65536;
    const segments = [];
    for (let i = rng.range(0, 3); i > 0; i--) {
      segments.push({
        offset: m.i32.const(rng.below(Math.max(1, this.memoryPages * 65536 - 64))),
        data: rng.bytes(rng.range(1, 48)),
        passive: false,
      });
    }
    if (this.memoryPages === 0) segments.length = 0;
    const exportMemory = rng.chance(0.9) ? 'memory' : null;
    m.setMemory(this.memoryPages, max, exportMemory, segments);
    m.addGlobal(FUEL, binaryen.i32, true, m.i32.const(100));
    for (let i = rng.range(1, 5); i > 0; i--) {
      const type = rng.pick(this.types);
      const name = `g${this.globals.length}`;
      m.addGlobal(name, type, true, this.constant(type));
      this.globals.push({ name, type });
      if (rng.chance(0.5)) m.addGlobalExport(name, name);
    }
    const count = rng.range(1, 7);
    for (let i = 0; i < count; i++) {
      const params = Array.from({ length: rng.range(0, 3) }, () => rng.pick(this.types));
      const result = rng.chance(0.25) ? binaryen.none : rng.pick(this.types);
      this.funcs.push({ name: `f${i}`, params, result });
    }
    this.tableSize = rng.range(0, count + 1);
    if (this.tableSize > 0) m.addTable('table', this.tableSize, this.tableSize);
    for (const spec of this.funcs) {
      this.budget = rng.range(20, 160);
      const locals = Array.from({ length: rng.range(0, 4) }, () =>
        rng.pick(this.useSimd && rng.chance(0.2) ? [binaryen.v128] : this.types),
      );
      const scope: Scope = { spec, locals: [...spec.params, ...locals], labels: [], depth: 0 };
      const body: number[] = [this.spendFuel()];
      for (let i = rng.range(1, 6); i > 0; i--) body.push(this.statement(scope));
      if (spec.result !== binaryen.none) body.push(this.expr(spec.result, scope));
      // Loops add their counters to scope.locals while the body is generated.
      const vars = scope.locals.slice(spec.params.length);
      m.addFunction(spec.name, binaryen.createType(spec.params), spec.result, vars, m.block(null, body, spec.result));
      m.addFunctionExport(spec.name, spec.name);
    }
    if (this.tableSize > 0) {
      // After the functions: Binaryen wants the segment's functions to exist.
      const filled = rng.range(0, this.tableSize);
      m.addActiveElementSegment(
        'table',
        'elems',
        Array.from({ length: filled }, () => rng.pick(this.funcs).name),
        m.i32.const(0),
      );
    }
    m.addFunction(
      'hangLimitInitializer',
      binaryen.none,
      binaryen.none,
      [],
      m.global.set(FUEL, m.i32.const(rng.range(50, 400))),
    );
    m.addFunctionExport('hangLimitInitializer', 'hangLimitInitializer');
  }

  /** `if (fuel == 0) unreachable; fuel--` */
  private spendFuel(): number {
    const m = this.m;
    return m.block(null, [
      m.if(m.i32.eqz(m.global.get(FUEL, binaryen.i32)), m.unreachable()),
      m.global.set(FUEL, m.i32.sub(m.global.get(FUEL, binaryen.i32), m.i32.const(1))),
    ]);
  }

  private constant(type: T): number {
    const { m, rng } = this;
    const small = rng.chance(0.6);
    if (type === binaryen.i32) return m.i32.const(small ? rng.range(-4, 70) : rng.next() | 0);
    if (type === binaryen.i64)
      return i64Const(
        m,
        small ? BigInt(rng.range(-4, 70)) : BigInt.asIntN(64, (BigInt(rng.next()) << 32n) | BigInt(rng.next())),
      );
    if (type === binaryen.f32)
      return m.f32.const(
        small ? rng.range(-8, 8) / 2 : rng.pick([NaN, Infinity, -Infinity, -0, 1e30, 3e-39, 2 ** 31, 4294967296]),
      );
    if (type === binaryen.f64)
      return m.f64.const(
        small ? rng.range(-8, 8) / 4 : rng.pick([NaN, Infinity, -0, 1e300, 2 ** 63, -(2 ** 31) - 1, 5e-324]),
      );
    return m.v128.const(Array.from(rng.bytes(16)));
  }

  private local(scope: Scope, type: T): number | null {
    const candidates = scope.locals.map((t, i) => (t === type ? i : -1)).filter((i) => i >= 0);
    return candidates.length ? this.rng.pick(candidates) : null;
  }

  /** An address: mostly in bounds, sometimes at the edge or past the end of memory. */
  private address(scope: Scope, bytes: number): number {
    const { m, rng } = this;
    const size = this.memoryPages * 65536;
    const roll = rng.below(10);
    if (roll < 4) return m.i32.const(rng.below(Math.max(1, Math.min(size, 256))));
    if (roll < 6) return m.i32.and(this.expr(binaryen.i32, scope), m.i32.const(0xfff));
    if (roll < 8) return m.i32.const(Math.max(0, size - bytes + rng.range(-2, 2)));
    if (roll < 9) return m.i32.sub(m.i32.mul(m.memory.size(), m.i32.const(65536)), m.i32.const(rng.range(0, 12)));
    return this.expr(binaryen.i32, scope);
  }

  private expr(type: T, scope: Scope): number {
    const { m, rng } = this;
    this.budget--;
    if (scope.depth > 6 || this.budget <= 0) return this.leaf(type, scope);
    scope.depth++;
    try {
      switch (rng.below(14)) {
        case 0:
        case 1:
          return this.leaf(type, scope);
        case 2:
        case 3:
        case 4:
          return this.arithmetic(type, scope);
        case 5:
          return this.load(type, scope);
        case 6: {
          const callees = this.funcs.filter((f) => f.result === type);
          if (callees.length === 0) return this.arithmetic(type, scope);
          const callee = rng.pick(callees);
          return m.call(
            callee.name,
            callee.params.map((p) => this.expr(p, scope)),
            type,
          );
        }
        case 7: {
          if (this.tableSize === 0) return this.arithmetic(type, scope);
          const sig = rng.pick(this.funcs);
          const params = rng.chance(0.8) ? sig.params : [binaryen.i32];
          const target = rng.chance(0.7) ? m.i32.const(rng.below(this.tableSize + 1)) : this.expr(binaryen.i32, scope);
          return m.call_indirect(
            'table',
            target,
            params.map((p) => this.expr(p, scope)),
            binaryen.createType(params),
            type,
          );
        }
        case 8:
          return m.if(this.condition(scope), this.expr(type, scope), this.expr(type, scope));
        case 9:
          return m.select(this.condition(scope), this.expr(type, scope), this.expr(type, scope));
        case 10: {
          const index = this.local(scope, type);
          return index === null ? this.arithmetic(type, scope) : m.local.tee(index, this.expr(type, scope), type);
        }
        case 11: {
          // A block that computes a value after some statements (possibly a loop).
          const label = this.label();
          scope.labels.push(label);
          const stmts = [this.statement(scope), this.statement(scope)];
          scope.labels.pop();
          return m.block(null, [m.block(label, stmts), this.expr(type, scope)], type);
        }
        case 12: {
          if (type !== binaryen.i32) return this.arithmetic(type, scope);
          return rng.chance(0.5)
            ? m.memory.size()
            : m.memory.grow(rng.chance(0.7) ? m.i32.const(rng.range(0, 2)) : this.expr(binaryen.i32, scope));
        }
        default:
          return this.convert(type, scope);
      }
    } finally {
      scope.depth--;
    }
  }

  private leaf(type: T, scope: Scope): number {
    const { m, rng } = this;
    const roll = rng.below(3);
    if (roll === 0) {
      const index = this.local(scope, type);
      if (index !== null) return m.local.get(index, type);
    }
    if (roll === 1) {
      const globals = this.globals.filter((g) => g.type === type);
      if (globals.length) return m.global.get(rng.pick(globals).name, type);
    }
    return this.constant(type);
  }

  private condition(scope: Scope): number {
    const { m, rng } = this;
    if (rng.chance(0.3)) return this.expr(binaryen.i32, scope);
    const type = rng.pick(this.types);
    const a = this.expr(type, scope);
    const b = this.expr(type, scope);
    const ops = type === binaryen.i32 ? m.i32 : type === binaryen.i64 ? m.i64 : null;
    if (ops) return ops[rng.pick(['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'le_u', 'ge_s'] as const)](a, b);
    const f = type === binaryen.f32 ? m.f32 : m.f64;
    return f[rng.pick(['eq', 'ne', 'lt', 'gt', 'le', 'ge'] as const)](a, b);
  }

  private arithmetic(type: T, scope: Scope): number {
    const { m, rng } = this;
    if (type === binaryen.v128) {
      return rng.chance(0.5)
        ? m.i32x4.add(this.expr(type, scope), this.expr(type, scope))
        : m.i32x4.splat(this.expr(binaryen.i32, scope));
    }
    const a = this.expr(type, scope);
    if (type === binaryen.i32 || type === binaryen.i64) {
      const ops = type === binaryen.i32 ? m.i32 : m.i64;
      if (rng.chance(0.2)) {
        const unary = rng.pick(['clz', 'ctz', 'popcnt', 'extend8_s', 'extend16_s', 'eqz'] as const);
        const r = ops[unary](a);
        return unary === 'eqz' && type === binaryen.i64 ? m.i64.extend_u(r) : r;
      }
      const op = rng.pick([
        'add',
        'sub',
        'mul',
        'div_s',
        'div_u',
        'rem_s',
        'rem_u',
        'and',
        'or',
        'xor',
        'shl',
        'shr_s',
        'shr_u',
        'rotl',
        'rotr',
      ] as const);
      return ops[op](a, this.expr(type, scope));
    }
    const ops = type === binaryen.f32 ? m.f32 : m.f64;
    if (rng.chance(0.25)) return ops[rng.pick(['neg', 'abs', 'ceil', 'floor', 'trunc', 'nearest', 'sqrt'] as const)](a);
    return ops[rng.pick(['add', 'sub', 'mul', 'div', 'min', 'max', 'copysign'] as const)](a, this.expr(type, scope));
  }

  private convert(type: T, scope: Scope): number {
    const { m, rng } = this;
    if (type === binaryen.i32) {
      switch (rng.below(5)) {
        case 0:
          return m.i32.wrap(this.expr(binaryen.i64, scope));
        case 1:
          return m.i32.trunc_s.f64(this.expr(binaryen.f64, scope));
        case 2:
          return m.i32.trunc_u_sat.f32(this.expr(binaryen.f32, scope));
        case 3:
          return m.i32.reinterpret(this.expr(binaryen.f32, scope));
        default:
          return this.useSimd
            ? m.i32x4.extract_lane(this.expr(binaryen.v128, scope), rng.below(4))
            : m.i32.eqz(this.expr(binaryen.i32, scope));
      }
    }
    if (type === binaryen.i64) {
      switch (rng.below(4)) {
        case 0:
          return m.i64.extend_s(this.expr(binaryen.i32, scope));
        case 1:
          return m.i64.trunc_u.f32(this.expr(binaryen.f32, scope));
        case 2:
          return m.i64.trunc_s_sat.f64(this.expr(binaryen.f64, scope));
        default:
          return m.i64.reinterpret(this.expr(binaryen.f64, scope));
      }
    }
    if (type === binaryen.f32) {
      switch (rng.below(3)) {
        case 0:
          return m.f32.demote(this.expr(binaryen.f64, scope));
        case 1:
          return m.f32.convert_u.i64(this.expr(binaryen.i64, scope));
        default:
          return m.f32.reinterpret(this.expr(binaryen.i32, scope));
      }
    }
    if (type === binaryen.f64) {
      switch (rng.below(3)) {
        case 0:
          return m.f64.promote(this.expr(binaryen.f32, scope));
        case 1:
          return m.f64.convert_s.i32(this.expr(binaryen.i32, scope));
        default:
          return m.f64.reinterpret(this.expr(binaryen.i64, scope));
      }
    }
    return this.arithmetic(type, scope);
  }

  private load(type: T, scope: Scope): number {
    const { m, rng } = this;
    const offset = rng.chance(0.8) ? 0 : rng.pick([1, 4, 100, 65535, 65536]);
    if (type === binaryen.i32) {
      const [op, bytes] = rng.pick([
        ['load', 4],
        ['load8_s', 1],
        ['load8_u', 1],
        ['load16_s', 2],
        ['load16_u', 2],
      ] as const);
      return m.i32[op](offset, bytes, this.address(scope, bytes));
    }
    if (type === binaryen.i64) {
      const [op, bytes] = rng.pick([
        ['load', 8],
        ['load8_u', 1],
        ['load16_s', 2],
        ['load32_u', 4],
        ['load32_s', 4],
      ] as const);
      return m.i64[op](offset, bytes, this.address(scope, bytes));
    }
    if (type === binaryen.f32) return m.f32.load(offset, 4, this.address(scope, 4));
    if (type === binaryen.f64) return m.f64.load(offset, 8, this.address(scope, 8));
    return rng.chance(0.5)
      ? m.v128.load(offset, 16, this.address(scope, 16))
      : m.v128.load32_splat(offset, 4, this.address(scope, 4));
  }

  private store(scope: Scope): number {
    const { m, rng } = this;
    const type = this.useSimd && rng.chance(0.1) ? binaryen.v128 : rng.pick(this.types);
    const offset = rng.chance(0.8) ? 0 : rng.pick([1, 3, 64, 65535]);
    if (type === binaryen.i32) {
      const [op, bytes] = rng.pick([
        ['store', 4],
        ['store8', 1],
        ['store16', 2],
      ] as const);
      return m.i32[op](offset, bytes, this.address(scope, bytes), this.expr(type, scope));
    }
    if (type === binaryen.i64) {
      const [op, bytes] = rng.pick([
        ['store', 8],
        ['store8', 1],
        ['store32', 4],
      ] as const);
      return m.i64[op](offset, bytes, this.address(scope, bytes), this.expr(type, scope));
    }
    if (type === binaryen.f32) return m.f32.store(offset, 4, this.address(scope, 4), this.expr(type, scope));
    if (type === binaryen.f64) return m.f64.store(offset, 8, this.address(scope, 8), this.expr(type, scope));
    return m.v128.store(offset, 16, this.address(scope, 16), this.expr(type, scope));
  }

  private label(): string {
    return `L${this.labelCounter++}`;
  }

  private log(type: T, value: number): number {
    const name =
      type === binaryen.i32
        ? 'log-i32'
        : type === binaryen.i64
          ? 'log-i64'
          : type === binaryen.f32
            ? 'log-f32'
            : 'log-f64';
    return this.m.call(name, [value], binaryen.none);
  }

  private statement(scope: Scope): number {
    const { m, rng } = this;
    this.budget--;
    if (scope.depth > 5 || this.budget <= 0) {
      const type = rng.pick(this.types);
      return this.log(type, this.leaf(type, scope));
    }
    scope.depth++;
    try {
      switch (rng.below(16)) {
        case 0:
        case 1: {
          const type = rng.pick(this.types);
          return this.log(type, this.expr(type, scope));
        }
        case 2:
        case 3: {
          if (scope.locals.length === 0) return this.store(scope);
          const index = rng.below(scope.locals.length);
          return m.local.set(index, this.expr(scope.locals[index]!, scope));
        }
        case 4: {
          const g = rng.pick(this.globals);
          return m.global.set(g.name, this.expr(g.type, scope));
        }
        case 5:
        case 6:
          return this.store(scope);
        case 7:
        case 8:
          return this.loop(scope);
        case 9: {
          const label = this.label();
          scope.labels.push(label);
          const body = [this.statement(scope), this.statement(scope), this.statement(scope)];
          scope.labels.pop();
          return m.block(label, body);
        }
        case 10:
          return m.if(
            this.condition(scope),
            this.statement(scope),
            rng.chance(0.5) ? this.statement(scope) : undefined,
          );
        case 11: {
          if (scope.labels.length === 0) return this.statement(scope);
          const target = rng.pick(scope.labels);
          if (rng.chance(0.5)) return m.br(target, this.condition(scope));
          const names = Array.from({ length: rng.range(0, 3) }, () => rng.pick(scope.labels));
          return m.if(this.condition(scope), m.switch(names, target, this.expr(binaryen.i32, scope)));
        }
        case 12: {
          const callees = this.funcs.filter((f) => f.result === binaryen.none || rng.chance(0.3));
          if (callees.length === 0) return this.store(scope);
          const callee = rng.pick(callees);
          const call = m.call(
            callee.name,
            callee.params.map((p) => this.expr(p, scope)),
            callee.result,
          );
          return callee.result === binaryen.none ? call : m.drop(call);
        }
        case 13: {
          const size = rng.chance(0.8) ? m.i32.const(rng.range(0, 40)) : this.expr(binaryen.i32, scope);
          return rng.chance(0.5)
            ? m.memory.fill(this.address(scope, 16), this.expr(binaryen.i32, scope), size)
            : m.memory.copy(this.address(scope, 16), this.address(scope, 16), size);
        }
        case 14: {
          if (!rng.chance(0.3)) return this.statement(scope);
          const value = scope.spec.result === binaryen.none ? undefined : this.expr(scope.spec.result, scope);
          return m.if(this.condition(scope), m.return(value));
        }
        default:
          return rng.chance(0.2)
            ? m.if(m.i32.eqz(this.condition(scope)), m.unreachable())
            : m.drop(this.expr(rng.pick(this.types), scope));
      }
    } finally {
      scope.depth--;
    }
  }

  /** Counted loops (top- or bottom-tested), loops left by a condition, and nested loops. */
  private loop(scope: Scope): number {
    const { m, rng } = this;
    const outer = this.label();
    const header = this.label();
    const counter = scope.locals.length;
    scope.locals.push(binaryen.i32);
    const trips = rng.range(0, 12);
    const get = () => m.local.get(counter, binaryen.i32);
    const step = m.local.set(counter, m.i32.add(get(), m.i32.const(1)));
    scope.labels.push(outer, header);
    const body: number[] = [this.spendFuel()];
    const shape = rng.below(3);
    if (shape === 0) body.push(m.br(outer, m.i32.ge_s(get(), m.i32.const(trips))));
    for (let i = rng.range(1, 3); i > 0; i--) body.push(this.statement(scope));
    body.push(step);
    if (shape === 1) body.push(m.br(header, m.i32.lt_s(get(), m.i32.const(trips))));
    else if (shape === 0) body.push(m.br(header));
    else body.push(m.br(header, this.condition(scope)));
    scope.labels.pop();
    scope.labels.pop();
    return m.block(outer, [m.local.set(counter, m.i32.const(0)), m.loop(header, m.block(null, body))]);
  }
}
