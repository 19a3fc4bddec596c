// Instrumentation data (counters, context trees, shadow memory) lives inside the module's own memory,
// because Node 20 has no multi-memory. Two placements, both exact:
//
// - below (the default): our regions take [0, base) and the program moves up by `base`. Every
//   program load and store gets `base` added to its static offset — free at run time — and the
//   real memory is exactly base + the program's size, so the engine's own bounds check traps an
//   out-of-bounds access just as before. Hosts that read program memory (AssemblyScript's abort,
//   plugins) add `programBase`. Relocation happens before the passes run: a pass that maps program
//   addresses (shadow memory) subtracts programBase from a program access's offset or address.
// - above (for WASI modules, whose host functions read program memory at the program's own
//   addresses): the program keeps [0, limit) and our regions sit above `limit`; the real memory is
//   sized for both from the start, so each program access is bounds-checked against the program's
//   own size to keep out-of-bounds traps exact.
//
// Either way memory.size and memory.grow are rewritten to report and grow only the program's part.
import binaryen from 'binaryen';
import { DEFAULT_MEMORY_LIMIT_PAGES } from '../src/util/memory-limit.js';
import {
  PROGRAM_PAGES_GLOBAL,
  MEMORY_GROW_FUNCTION,
  PROGRAM_BYTES_GLOBAL,
  OUT_OF_ROOM_GLOBAL,
  PROGRAM_BYTES32_GLOBAL,
} from './reserved-names.js';
import { PAGE, initialRealPages, type MemoryLayout, type Placement } from './memory-plan.js';
import {
  Id,
  childSlots,
  idOf,
  Func,
  Load,
  Store,
  SIMDLoad,
  SIMDLoadStoreLane,
  MemoryGrow,
  addVar,
  i64Const,
  typeOf,
  type Expr,
} from './ir.js';

const MAX_PAGES = 65536;

export interface RegionRequest {
  name: string;
  /** Fixed size in bytes (added to the proportional part when both are given). */
  bytes?: number;
  /** Size proportional to the program's memory limit (e.g. 4 for a 4-byte label per program byte). */
  perProgramByte?: number;
}

export { PAGE, initialRealPages, type MemoryLayout, type Placement } from './memory-plan.js';
export { PROGRAM_PAGES_GLOBAL, MEMORY_GROW_FUNCTION, PROGRAM_BYTES_GLOBAL, OUT_OF_ROOM_GLOBAL, PROGRAM_BYTES32_GLOBAL };
const SMALL_EXTENT = 0x10000;

export interface LayoutOptions {
  /** Upper bound for the program's memory in pages (default: all wasm32 leaves beside our regions). */
  programLimitPages?: number;
  /**
   * Keep out-of-bounds traps exact: every program access is checked against the program's own
   * memory size, since the real memory is larger (default true). Off, an access past the program's
   * memory reads our data instead of trapping: only for programs known to be in bounds.
   */
  boundsChecks?: boolean;
  /** Where our regions go; default: below, except for WASI modules (see the file comment). */
  placement?: Placement;
}

export function planMemoryLayout(
  module: binaryen.Module,
  requests: RegionRequest[],
  options: LayoutOptions = {},
): MemoryLayout {
  const info = module.hasMemory() ? module.getMemoryInfo() : null;
  if (info?.module) throw new Error('modules that import their memory cannot be instrumented in this mode yet');
  if (info?.shared) throw new Error('shared memories cannot be instrumented in this mode yet');
  const placement = options.placement ?? 'below';
  const initial = info?.initial ?? 0;
  const declaredMax = info?.max ?? MAX_PAGES;
  const ratio = requests.reduce((sum, r) => sum + (r.perProgramByte ?? 0), 0);
  const fixedPages = Math.ceil(requests.reduce((sum, r) => sum + align(r.bytes ?? 0, 16), 0) / PAGE) + 1;
  // One page short of 4 GiB at most, so an address that wrapped in 32 bits is always out of bounds.
  const room = Math.floor((MAX_PAGES - 1 - fixedPages) / (1 + ratio));
  // The default limit is the declared maximum, else 1 GiB (as documented); above, where the real
  // memory is sized for the limit from the start, 1 GiB even when the module declares more.
  const defaultLimit = placement === 'below' && typeof info?.max === 'number' ? info.max : DEFAULT_MEMORY_LIMIT_PAGES;
  const limit = Math.min(declaredMax, options.programLimitPages ?? defaultLimit, room);
  if (limit < initial)
    throw new Error(`the program's memory (${initial} pages) leaves no room for instrumentation data`);
  const regions: MemoryLayout['regions'] = {};
  let cursor = placement === 'below' ? 0 : limit * PAGE;
  for (const request of requests) {
    const bytes = align((request.bytes ?? 0) + Math.ceil(limit * PAGE * (request.perProgramByte ?? 0)), 16);
    regions[request.name] = { base: cursor, bytes };
    cursor += bytes;
  }
  const programBase = placement === 'below' ? align(Math.max(cursor, PAGE), PAGE) : 0;
  const totalPages = placement === 'below' ? programBase / PAGE + limit : Math.ceil(cursor / PAGE);
  return {
    placement,
    programBase,
    programMaxPages: declaredMax,
    programLimitPages: limit,
    programInitialPages: initial,
    regions,
    totalPages,
  };
}

/**
 * Redirects memory.size and memory.grow to the program's logical memory, makes sure a memory
 * exists, and moves the program's accesses up by programBase (below) or bounds-checks them (above).
 */
export function applyMemoryLayout(module: binaryen.Module, layout: MemoryLayout, options: LayoutOptions = {}): void {
  const hadMemory = module.hasMemory();
  if (!hadMemory) module.setMemory(initialRealPages(layout), layout.totalPages, null);
  const below = layout.placement === 'below';
  module.addGlobal(PROGRAM_PAGES_GLOBAL, binaryen.i32, true, module.i32.const(layout.programInitialPages));
  module.addGlobal(OUT_OF_ROOM_GLOBAL, binaryen.i32, true, module.i32.const(0));
  module.addGlobalExport(OUT_OF_ROOM_GLOBAL, OUT_OF_ROOM_GLOBAL);
  module.addGlobal(PROGRAM_BYTES_GLOBAL, binaryen.i64, true, i64Const(module, layout.programInitialPages * PAGE));
  module.addGlobal(PROGRAM_BYTES32_GLOBAL, binaryen.i32, true, module.i32.const(layout.programInitialPages * PAGE));
  const delta = () => module.local.get(0, binaryen.i32);
  const pages = () => module.global.get(PROGRAM_PAGES_GLOBAL, binaryen.i32);
  module.addFunction(
    MEMORY_GROW_FUNCTION,
    binaryen.i32,
    binaryen.i32,
    [binaryen.i32],
    module.block(
      null,
      [
        module.if(
          module.i32.gt_u(delta(), module.i32.sub(module.i32.const(layout.programLimitPages), pages())),
          // Past its own maximum the program sees -1 as before; past only our limit it would have
          // grown, so the run stops rather than compute something else (the runtime says why).
          module.if(
            module.i32.gt_u(delta(), module.i32.sub(module.i32.const(layout.programMaxPages), pages())),
            module.return(module.i32.const(-1)),
            module.block(null, [module.global.set(OUT_OF_ROOM_GLOBAL, module.i32.const(1)), module.unreachable()]),
          ),
        ),
        module.local.set(1, pages()),
        ...(below
          ? [
              module.if(
                module.i32.eq(module.memory.grow(delta()), module.i32.const(-1)),
                module.return(module.i32.const(-1)),
              ),
            ]
          : []),
        module.global.set(PROGRAM_PAGES_GLOBAL, module.i32.add(pages(), delta())),
        module.global.set(PROGRAM_BYTES_GLOBAL, module.i64.mul(module.i64.extend_u(pages()), i64Const(module, PAGE))),
        module.global.set(PROGRAM_BYTES32_GLOBAL, module.i32.mul(pages(), module.i32.const(PAGE))),
        module.local.get(1, binaryen.i32),
      ],
      binaryen.i32,
    ),
  );
  for (const func of definedFunctions(module)) {
    if (Func.getName(func) === MEMORY_GROW_FUNCTION) continue;
    const body = Func.getBody(func);
    if (!body) continue;
    const checks = !below && hadMemory && options.boundsChecks !== false ? new BoundsChecker(module, func) : null;
    const relocate = below ? (expr: Expr) => relocateAccess(module, func, expr, layout.programBase) : null;
    const replaced = rewriteMemoryOps(module, body, checks, relocate);
    if (replaced !== body) Func.setBody(func, replaced);
  }
}

const ACCESS_IDS = new Set<number>([
  Id.Load,
  Id.Store,
  Id.SIMDLoad,
  Id.SIMDLoadStoreLane,
  Id.MemoryCopy,
  Id.MemoryFill,
  Id.MemoryInit,
]);

function relocateAccess(module: binaryen.Module, func: number, expr: Expr, base: number): void {
  const id = idOf(expr);
  const accessor =
    id === Id.Load
      ? Load
      : id === Id.Store
        ? Store
        : id === Id.SIMDLoad
          ? SIMDLoad
          : id === Id.SIMDLoadStoreLane
            ? SIMDLoadStoreLane
            : null;
  if (accessor) {
    // Binaryen returns offsets past 2 GiB as negative numbers.
    const offset = (accessor.getOffset(expr) >>> 0) + base;
    if (offset <= 0xffffffff) {
      accessor.setOffset(expr, offset);
      return;
    }
    // Past 4 GiB the original access was out of bounds whatever the pointer: keep it failing.
    accessor.setOffset(expr, 0xffffffff);
    const slots = childSlots(expr);
    slots[0]!.replace(module.block(null, [module.drop(slots[0]!.expr), module.i32.const(-1)], binaryen.i32));
    return;
  }
  // Bulk operations take addresses as operands: add the base, keeping a wrapped address out of bounds.
  const slots = childSlots(expr);
  const addressSlots = id === Id.MemoryCopy ? [slots[0]!, slots[1]!] : [slots[0]!];
  for (const slot of addressSlots) {
    const shifted = addVar(func, binaryen.i32);
    // select evaluates its arms before its condition: the tee runs first.
    slot.replace(
      module.select(
        module.i32.ge_u(module.local.get(shifted, binaryen.i32), module.i32.const(base)),
        module.local.tee(shifted, module.i32.add(slot.expr, module.i32.const(base)), binaryen.i32),
        module.i32.const(-1),
      ),
    );
  }
}

function rewriteMemoryOps(
  module: binaryen.Module,
  root: Expr,
  checks: BoundsChecker | null,
  relocate: ((expr: Expr) => void) | null,
): Expr {
  const replaceIn = (expr: Expr): Expr => {
    for (const slot of childSlots(expr)) {
      const next = replaceIn(slot.expr);
      if (next !== slot.expr) slot.replace(next);
    }
    const id = idOf(expr);
    if (id === Id.MemorySize) return module.global.get(PROGRAM_PAGES_GLOBAL, binaryen.i32);
    if (relocate && ACCESS_IDS.has(id)) relocate(expr);
    if (id === Id.MemoryGrow) {
      const delta = MemoryGrow.getDelta(expr);
      return module.call(MEMORY_GROW_FUNCTION, [delta], binaryen.i32);
    }
    checks?.check(expr);
    return expr;
  };
  return replaceIn(root);
}

const SIMD_LOAD_BYTES = [1, 2, 4, 8, 8, 8, 8, 8, 8, 8, 4, 8];
const LANE_BYTES = [1, 2, 4, 8];

/**
 * Makes an access past the program's memory trap as it did before the memory grew for our regions:
 * the address is checked (in 64 bits, so nothing wraps) and a failing check performs an access that
 * is out of bounds for any memory, so the trap is the same "memory access out of bounds".
 */
class BoundsChecker {
  private readonly temps = new Map<number, number>();
  constructor(
    private readonly module: binaryen.Module,
    private readonly func: number,
  ) {}

  check(expr: Expr): void {
    // An access with an unreachable operand never happens (and wrapping that operand in a typed
    // block would leave the access typed unreachable with no unreachable child: invalid).
    if (typeOf(expr) === binaryen.unreachable) return;
    const id = idOf(expr);
    if (id === Id.Load || id === Id.Store) {
      const access = id === Id.Load ? Load : Store;
      if (access.isAtomic(expr)) return;
      this.guardPointer(expr, (access.getOffset(expr) >>> 0) + access.getBytes(expr));
    } else if (id === Id.SIMDLoad) {
      this.guardPointer(expr, (SIMDLoad.getOffset(expr) >>> 0) + SIMD_LOAD_BYTES[SIMDLoad.getOp(expr)]!);
    } else if (id === Id.SIMDLoadStoreLane) {
      this.guardPointer(
        expr,
        (SIMDLoadStoreLane.getOffset(expr) >>> 0) + LANE_BYTES[SIMDLoadStoreLane.getOp(expr) % 4]!,
      );
    } else if (id === Id.MemoryCopy || id === Id.MemoryFill || id === Id.MemoryInit) {
      this.guardRange(expr, id);
    }
  }

  private temp(type: number): number {
    let local = this.temps.get(type);
    if (local === undefined) this.temps.set(type, (local = addVar(this.func, type)));
    return local;
  }

  private outOfBounds(): Expr {
    return this.module.drop(this.module.i32.load8_u(0xffffffff, 1, this.module.i32.const(-1)));
  }

  private exceeds(address: Expr, extent: Expr): Expr {
    const m = this.module;
    return m.i64.gt_u(m.i64.add(m.i64.extend_u(address), extent), m.global.get(PROGRAM_BYTES_GLOBAL, binaryen.i64));
  }

  /**
   * ptr → (p = ptr; if p + end > size: trap; p). For a static end up to 64 KiB the test is one
   * 32-bit add and compare: if p + end wraps, p + offset lies past 4 GiB - 64 KiB, beyond the real
   * memory, and the engine's own check traps just as the original would.
   */
  private guardPointer(expr: Expr, end: number): void {
    const m = this.module;
    const slots = childSlots(expr);
    const slot = slots[0]!;
    const failing = (p: number) =>
      end <= SMALL_EXTENT
        ? m.i32.gt_u(
            m.i32.add(m.local.get(p, binaryen.i32), m.i32.const(end)),
            m.global.get(PROGRAM_BYTES32_GLOBAL, binaryen.i32),
          )
        : this.exceeds(m.local.get(p, binaryen.i32), i64Const(m, end));
    if (slots.length === 1) {
      const p = this.temp(binaryen.i32);
      slot.replace(
        m.block(
          null,
          [m.local.set(p, slot.expr), m.if(failing(p), this.outOfBounds()), m.local.get(p, binaryen.i32)],
          binaryen.i32,
        ),
      );
      return;
    }
    // A store (or lane access) traps only after its value operand ran, so the check goes after it:
    // the value's side effects (calls, global writes, its own traps) happen first, as in the original.
    const value = slots[slots.length - 1]!;
    const type = typeOf(value.expr);
    if (type === binaryen.unreachable) return;
    const p = addVar(this.func, binaryen.i32);
    const v = this.temp(type);
    slot.replace(m.local.tee(p, slot.expr, binaryen.i32));
    value.replace(
      m.block(null, [m.local.set(v, value.expr), m.if(failing(p), this.outOfBounds()), m.local.get(v, type)], type),
    );
  }

  /** Bulk operations: the size operand is last, so the check goes there, after all operands ran. */
  private guardRange(expr: Expr, id: number): void {
    const m = this.module;
    const slots = childSlots(expr);
    const dest = slots[0]!;
    const size = slots[2]!;
    const d = addVar(this.func, binaryen.i32);
    const n = this.temp(binaryen.i32);
    dest.replace(m.local.tee(d, dest.expr, binaryen.i32));
    let source: Expr | null = null;
    if (id === Id.MemoryCopy) {
      const s = addVar(this.func, binaryen.i32);
      slots[1]!.replace(m.local.tee(s, slots[1]!.expr, binaryen.i32));
      source = m.local.get(s, binaryen.i32);
    }
    const extent = () => m.i64.extend_u(m.local.get(n, binaryen.i32));
    const failing = this.exceeds(m.local.get(d, binaryen.i32), extent());
    size.replace(
      m.block(
        null,
        [
          m.local.set(n, size.expr),
          m.if(source ? m.i32.or(failing, this.exceeds(source, extent())) : failing, this.outOfBounds()),
          m.local.get(n, binaryen.i32),
        ],
        binaryen.i32,
      ),
    );
  }
}

export function definedFunctions(module: binaryen.Module): number[] {
  const funcs: number[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const func = module.getFunctionByIndex(i);
    if (!binaryen.getFunctionInfo(func).module) funcs.push(func);
  }
  return funcs;
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}
