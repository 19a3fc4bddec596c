// Shadow memory of the taint pass: where the label of a program byte lives and the inlined code that
// reads, writes, copies and fills labels. Two granularities:
//
//   - word (default): one i32 label per aligned 4-byte word of the program, the union of its bytes'
//     labels. An f64 load reads 8 label bytes instead of 32. Loads and stores of 4 bytes or more at
//     word-aligned addresses are exact; a narrower store ORs its label into the word (never drops a
//     label, may over-approximate: a byte then carries its neighbours' labels).
//   - byte: one i32 label per program byte, exact for every access size, 4x the memory traffic.
//
// Where the labels sit (skewed against program addresses) is shadow-placement.ts.
import binaryen from 'binaryen';
import { i64Const, type Expr } from '../ir.js';
import type { RegionRequest } from '../memory-layout.js';
import { SKEW_PERIOD, type ShadowGranularity, type ShadowPlacement } from './shadow-placement.js';

export {
  placeShadow,
  labelIndices,
  SHADOW_GRANULARITIES,
  type ShadowGranularity,
  type ShadowPlacement,
} from './shadow-placement.js';

/** What the shadow code generator needs from the function being instrumented. */
export interface ShadowCodegen {
  module: binaryen.Module;
  /** A scratch local of `type`, the same one for the same key. */
  temp(type: number, key: string): number;
  /** A fresh copy of a flat operand (local.get or const), to re-read it. */
  copy(expr: Expr): Expr;
}

export const FILL_FUNCTION = 'taintlens$shadow_fill';
export const COPY_FUNCTION = 'taintlens$shadow_copy';
const UNION_FUNCTION = 'taintlens$shadow_union';
const FILL_WORDS_FUNCTION = 'taintlens$shadow_fill_words';
export const SHADOW_FUNCTIONS: readonly string[] = [FILL_FUNCTION, COPY_FUNCTION, FILL_WORDS_FUNCTION, UNION_FUNCTION];

export function shadowRegion(granularity: ShadowGranularity): RegionRequest {
  return granularity === 'word'
    ? { name: 'shadow', perProgramByte: 1, bytes: SKEW_PERIOD }
    : { name: 'shadow', perProgramByte: 4, bytes: SKEW_PERIOD };
}

export interface ShadowMemory {
  placement: ShadowPlacement;
  /** Label of `bytes` program bytes at `ptr + offset` (ptr: a flat operand holding a program address). */
  load(g: ShadowCodegen, ptr: Expr, offset: number, bytes: number): Expr;
  /** Sets the labels of `bytes` program bytes at `ptr + offset` to `label` (evaluated once). */
  store(g: ShadowCodegen, ptr: Expr, offset: number, bytes: number, label: Expr): Expr[];
  /** After memory.copy of n bytes from src to dst (program addresses; each expression evaluated once). */
  copy(g: ShadowCodegen, dst: Expr, src: Expr, n: Expr): Expr;
  /** Sets the labels of n program bytes at dst to label (each expression evaluated once). */
  fill(g: ShadowCodegen, dst: Expr, label: Expr, n: Expr): Expr;
  /** Adds the helper functions the inlined code calls. */
  addHelpers(module: binaryen.Module): void;
  /**
   * Whether `expr` is a label load made by `load` (an `if` on the alignment). The engine cannot
   * drop one whose label nobody reads (a load may trap), but the program's own access traps first.
   */
  isLabelLoad(expr: Expr): boolean;
  /** Whether `expr` is an `if` on the alignment of a label access whose else arm is the aligned access (shadow-versioning.ts). */
  isAlignmentCheck(expr: Expr): boolean;
  /** Registers a copy of a label load (made by shadow-versioning.ts) as one. */
  markLabelLoad(expr: Expr): void;
  /** Registers a copy of an alignment check (made by shadow-versioning.ts) as one. */
  markAlignmentCheck(expr: Expr): void;
}

export function shadowMemory(placement: ShadowPlacement): ShadowMemory {
  return placement.granularity === 'word' ? wordShadow(placement) : byteShadow(placement);
}

const i32 = () => binaryen.i32;

/** Nonzero when ptr + k is not a multiple of 4. */
function misaligned(g: ShadowCodegen, ptr: Expr, k: number): Expr {
  const r = k & 3;
  return g.module.i32.and(
    r === 0 ? g.copy(ptr) : g.module.i32.add(g.copy(ptr), g.module.i32.const(r)),
    g.module.i32.const(3),
  );
}

/** memarg offsets are u32: fold a constant into the offset when it fits, into the address otherwise. */
function at(module: binaryen.Module, address: Expr, offset: number): { ptr: Expr; offset: number } {
  if (offset >= 0 && offset < 2 ** 32) return { ptr: address, offset };
  return { ptr: module.i32.add(address, module.i32.const(offset | 0)), offset: 0 };
}

function fold64(g: ShadowCodegen, value: Expr): Expr {
  const { module } = g;
  const t = g.temp(binaryen.i64, 'fold');
  return module.i32.wrap(
    module.i64.or(
      module.local.tee(t, value, binaryen.i64),
      module.i64.shr_u(module.local.get(t, binaryen.i64), i64Const(module, 32)),
    ),
  );
}

function foldV(g: ShadowCodegen, value: Expr): Expr {
  const { module } = g;
  const t = g.temp(binaryen.v128, 'foldv');
  return fold64(
    g,
    module.i64.or(
      module.i64x2.extract_lane(module.local.tee(t, value, binaryen.v128), 0),
      module.i64x2.extract_lane(module.local.get(t, binaryen.v128), 1),
    ),
  );
}

const REPEAT64 = 0x100000001n;

// ---------------------------------------------------------------------------------------------
// Word granularity

function wordShadow(placement: ShadowPlacement): ShadowMemory {
  const S = placement.labels;
  const labelLoads = new Set<Expr>();
  const alignmentChecks = new Set<Expr>();
  /** Address of the label word holding program byte ptr + k (k ≥ 0 constant). */
  const wordOf = (g: ShadowCodegen, ptr: Expr, k: number) => {
    const { module } = g;
    const r = k & 3;
    const masked = module.i32.and(
      r === 0 ? g.copy(ptr) : module.i32.add(g.copy(ptr), module.i32.const(r)),
      module.i32.const(-4),
    );
    return at(module, masked, S + (k - r));
  };
  /** The label address of program byte ptr + k when that is word-aligned. */
  const direct = (g: ShadowCodegen, ptr: Expr, k: number) => at(g.module, g.copy(ptr), S + k);
  const loadWordAt = (g: ShadowCodegen, ptr: Expr, k: number) => {
    const a = direct(g, ptr, k);
    return g.module.i32.load(a.offset, 4, a.ptr);
  };
  const loadWord = (g: ShadowCodegen, ptr: Expr, k: number) => {
    const a = wordOf(g, ptr, k);
    return g.module.i32.load(a.offset, 4, a.ptr);
  };
  return {
    placement,
    load(g, ptr, offset, bytes) {
      const { module } = g;
      if (bytes === 1) return loadWord(g, ptr, offset);
      if (bytes === 2) return module.i32.or(loadWord(g, ptr, offset), loadWord(g, ptr, offset + 1));
      // Word-aligned (practically always): the words of the access, read directly. Otherwise a
      // helper joins every word the bytes touch.
      const a = direct(g, ptr, offset);
      // 8 bytes: two word loads joined (5 instructions) rather than one i64 load folded (8).
      const aligned =
        bytes === 4
          ? module.i32.load(a.offset, 4, a.ptr)
          : bytes === 8
            ? module.i32.or(module.i32.load(a.offset, 4, a.ptr), loadWordAt(g, ptr, offset + 4))
            : foldV(g, module.v128.load(a.offset, 4, a.ptr));
      // Misaligned, the bytes touch one word more. Inline, not a helper call: a call in the loop
      // makes the engine keep the loop's values in memory around it (measured 1.2x on the suite).
      let slow = loadWord(g, ptr, offset);
      for (let k = 4; k < bytes; k += 4) slow = module.i32.or(slow, loadWord(g, ptr, offset + k));
      slow = module.i32.or(slow, loadWord(g, ptr, offset + bytes - 1));
      const labelLoad = module.if(misaligned(g, ptr, offset), slow, aligned);
      labelLoads.add(labelLoad);
      alignmentChecks.add(labelLoad);
      return labelLoad;
    },
    store(g, ptr, offset, bytes, label) {
      const { module } = g;
      const t = g.temp(binaryen.i32, 'slabel');
      const get = () => module.local.get(t, binaryen.i32);
      const orInto = (k: number) => {
        const a = wordOf(g, ptr, k);
        const b = wordOf(g, ptr, k);
        return module.i32.store(a.offset, 4, a.ptr, module.i32.or(module.i32.load(b.offset, 4, b.ptr), get()));
      };
      if (bytes === 1) return [module.local.set(t, label), orInto(offset)];
      if (bytes === 2) return [module.local.set(t, label), orInto(offset), orInto(offset + 1)];
      // Aligned: the label replaces the words'; otherwise the fill helper ORs into the partial words.
      const a = direct(g, ptr, offset);
      const aligned =
        bytes === 4
          ? module.i32.store(a.offset, 4, a.ptr, get())
          : bytes === 8
            ? module.i64.store(
                a.offset,
                4,
                a.ptr,
                module.i64.mul(module.i64.extend_u(get()), i64Const(module, REPEAT64)),
              )
            : module.v128.store(a.offset, 4, a.ptr, module.i32x4.splat(get()));
      // Misaligned: the label is ORed into the partial words at both ends and replaces the words
      // in between (inline, like loads).
      const setWord = (k: number) => {
        const w = wordOf(g, ptr, k);
        return module.i32.store(w.offset, 4, w.ptr, get());
      };
      const slow: Expr[] = [orInto(offset)];
      for (let k = 4; k < bytes; k += 4) slow.push(setWord(offset + k));
      slow.push(orInto(offset + bytes - 1));
      const check = module.if(misaligned(g, ptr, offset), module.block(null, slow), aligned);
      alignmentChecks.add(check);
      return [module.local.set(t, label), check];
    },
    copy(g, dst, src, n) {
      return g.module.call(COPY_FUNCTION, [dst, src, n], binaryen.none);
    },
    fill(g, dst, label, n) {
      return g.module.call(FILL_FUNCTION, [dst, label, n], binaryen.none);
    },
    isLabelLoad: (expr) => labelLoads.has(expr),
    isAlignmentCheck: (expr) => alignmentChecks.has(expr),
    markLabelLoad: (expr) => {
      labelLoads.add(expr);
    },
    markAlignmentCheck: (expr) => {
      alignmentChecks.add(expr);
    },
    addHelpers(module) {
      addFillWords(module);
      addWordUnion(module, S);
      addWordFill(module, S);
      addWordCopy(module, S);
    },
  };
}

/** fill_words(address, label, bytes): bytes is a multiple of 4; writes `label` to every word. */
function addFillWords(module: binaryen.Module): void {
  const t = i32();
  const [ADDR, LABEL, N, END] = [0, 1, 2, 3];
  const get = (i: number) => module.local.get(i, t);
  // Bulk zeroing and allocators fill large ranges: a nonzero label is written once as a 16-byte
  // pattern, then the filled prefix is doubled with memory.copy (non-overlapping halves; lengths
  // stay multiples of 4, so the pattern stays aligned to labels). END: first the end address, then
  // the filled length.
  const body = module.if(
    module.i32.eqz(get(LABEL)),
    module.memory.fill(get(ADDR), module.i32.const(0), get(N)),
    module.if(
      module.i32.lt_u(get(N), module.i32.const(16)),
      module.block(null, [
        module.local.set(END, module.i32.add(get(ADDR), get(N))),
        module.block('done', [
          module.loop(
            'fill',
            module.block(null, [
              module.br('done', module.i32.ge_u(get(ADDR), get(END))),
              module.i32.store(0, 4, get(ADDR), get(LABEL)),
              module.local.set(ADDR, module.i32.add(get(ADDR), module.i32.const(4))),
              module.br('fill'),
            ]),
          ),
        ]),
      ]),
      module.block(null, [
        module.v128.store(0, 4, get(ADDR), module.i32x4.splat(get(LABEL))),
        module.local.set(END, module.i32.const(16)),
        module.block('doubled', [
          module.loop(
            'double',
            module.block(null, [
              module.br('doubled', module.i32.gt_u(get(END), module.i32.sub(get(N), get(END)))),
              module.memory.copy(module.i32.add(get(ADDR), get(END)), get(ADDR), get(END)),
              module.local.set(END, module.i32.shl(get(END), module.i32.const(1))),
              module.br('double'),
            ]),
          ),
        ]),
        module.memory.copy(module.i32.add(get(ADDR), get(END)), get(ADDR), module.i32.sub(get(N), get(END))),
      ]),
    ),
  );
  module.addFunction(FILL_WORDS_FUNCTION, binaryen.createType([t, t, t]), binaryen.none, [t], body);
}

/**
 * fill(addr, label, n) for program bytes [addr, addr+n): words wholly inside get the label, the
 * partial words at either end have it ORed in.
 */
function addWordFill(module: binaryen.Module, S: number): void {
  const t = i32();
  const [ADDR, LABEL, N, END, FIRST, LAST] = [0, 1, 2, 3, 4, 5];
  const get = (i: number) => module.local.get(i, t);
  const word = (index: Expr) => module.i32.add(module.i32.shl(index, module.i32.const(2)), module.i32.const(S | 0));
  const orWord = (index: () => Expr) =>
    module.i32.store(0, 4, word(index()), module.i32.or(module.i32.load(0, 4, word(index())), get(LABEL)));
  const body = module.block(
    null,
    [
      module.br('out', module.i32.eqz(get(N))),
      module.local.set(END, module.i32.add(get(ADDR), get(N))),
      // FIRST, LAST: the whole words [FIRST, LAST).
      module.local.set(FIRST, module.i32.shr_u(module.i32.add(get(ADDR), module.i32.const(3)), module.i32.const(2))),
      module.local.set(LAST, module.i32.shr_u(get(END), module.i32.const(2))),
      module.if(
        module.i32.and(get(ADDR), module.i32.const(3)),
        orWord(() => module.i32.shr_u(get(ADDR), module.i32.const(2))),
      ),
      module.if(
        module.i32.and(get(END), module.i32.const(3)),
        orWord(() => module.i32.shr_u(get(END), module.i32.const(2))),
      ),
      module.if(
        module.i32.lt_u(get(FIRST), get(LAST)),
        module.call(
          FILL_WORDS_FUNCTION,
          [word(get(FIRST)), get(LABEL), module.i32.shl(module.i32.sub(get(LAST), get(FIRST)), module.i32.const(2))],
          binaryen.none,
        ),
      ),
    ],
    binaryen.none,
  );
  module.addFunction(
    FILL_FUNCTION,
    binaryen.createType([t, t, t]),
    binaryen.none,
    [t, t, t],
    module.block('out', [body]),
  );
}

/** union(addr, n) → the labels of the words that program bytes [addr, addr+n) touch (n ≥ 1). */
function addWordUnion(module: binaryen.Module, S: number): void {
  const t = i32();
  const [ADDR, N, LABEL, W, END] = [0, 1, 2, 3, 4];
  const get = (i: number) => module.local.get(i, t);
  const word = (index: Expr) => module.i32.add(module.i32.shl(index, module.i32.const(2)), module.i32.const(S | 0));
  const body = module.block(
    null,
    [
      module.local.set(W, module.i32.shr_u(get(ADDR), module.i32.const(2))),
      module.local.set(
        END,
        module.i32.shr_u(module.i32.sub(module.i32.add(get(ADDR), get(N)), module.i32.const(1)), module.i32.const(2)),
      ),
      module.loop(
        'union',
        module.block(null, [
          module.local.set(LABEL, module.i32.or(get(LABEL), module.i32.load(0, 4, word(get(W))))),
          module.local.set(W, module.i32.add(get(W), module.i32.const(1))),
          module.br('union', module.i32.le_u(get(W), get(END))),
        ]),
      ),
      get(LABEL),
    ],
    t,
  );
  module.addFunction(UNION_FUNCTION, binaryen.createType([t, t]), t, [t, t, t], body);
}

/**
 * copy(dst, src, n) after memory.copy: word-aligned copies move the labels exactly; otherwise the
 * union of the source words' labels is filled into the destination (sound, coarser).
 */
function addWordCopy(module: binaryen.Module, S: number): void {
  const t = i32();
  const [DST, SRC, N] = [0, 1, 2];
  const get = (i: number) => module.local.get(i, t);
  const word = (index: Expr) => module.i32.add(module.i32.shl(index, module.i32.const(2)), module.i32.const(S | 0));
  const body = module.block('out', [
    module.br('out', module.i32.eqz(get(N))),
    module.if(
      module.i32.eqz(module.i32.and(module.i32.or(module.i32.or(get(DST), get(SRC)), get(N)), module.i32.const(3))),
      module.block(null, [
        module.memory.copy(
          word(module.i32.shr_u(get(DST), module.i32.const(2))),
          word(module.i32.shr_u(get(SRC), module.i32.const(2))),
          get(N),
        ),
        module.br('out'),
      ]),
    ),
    module.call(FILL_FUNCTION, [get(DST), module.call(UNION_FUNCTION, [get(SRC), get(N)], t), get(N)], binaryen.none),
  ]);
  module.addFunction(COPY_FUNCTION, binaryen.createType([t, t, t]), binaryen.none, [], body);
}

// ---------------------------------------------------------------------------------------------
// Byte granularity

function byteShadow(placement: ShadowPlacement): ShadowMemory {
  const S = placement.labels;
  const byteAt = (g: ShadowCodegen, ptr: Expr, k: number) => {
    const { module } = g;
    const scaled = S + k * 4;
    if (scaled < 2 ** 32) return { ptr: module.i32.shl(g.copy(ptr), module.i32.const(2)), offset: scaled };
    return {
      ptr: module.i32.add(
        module.i32.shl(module.i32.add(g.copy(ptr), module.i32.const(k | 0)), module.i32.const(2)),
        module.i32.const(S | 0),
      ),
      offset: 0,
    };
  };
  return {
    placement,
    load(g, ptr, offset, bytes) {
      const { module } = g;
      if (bytes === 1) {
        const a = byteAt(g, ptr, offset);
        return module.i32.load(a.offset, 1, a.ptr);
      }
      if (bytes === 2) {
        const a = byteAt(g, ptr, offset);
        return fold64(g, module.i64.load(a.offset, 1, a.ptr));
      }
      if (bytes === 4) {
        const a = byteAt(g, ptr, offset);
        const b = byteAt(g, ptr, offset + 2);
        return fold64(g, module.i64.or(module.i64.load(a.offset, 1, a.ptr), module.i64.load(b.offset, 1, b.ptr)));
      }
      let acc: Expr | null = null;
      for (let k = 0; k < bytes; k += 4) {
        const a = byteAt(g, ptr, offset + k);
        const v = module.v128.load(a.offset, 1, a.ptr);
        acc = acc === null ? v : module.v128.or(acc, v);
      }
      return foldV(g, acc!);
    },
    store(g, ptr, offset, bytes, label) {
      const { module } = g;
      if (bytes === 1) {
        const a = byteAt(g, ptr, offset);
        return [module.i32.store(a.offset, 1, a.ptr, label)];
      }
      if (bytes === 2) {
        const a = byteAt(g, ptr, offset);
        return [
          module.i64.store(a.offset, 1, a.ptr, module.i64.mul(module.i64.extend_u(label), i64Const(module, REPEAT64))),
        ];
      }
      const t = g.temp(binaryen.v128, 'splat');
      const out: Expr[] = [module.local.set(t, module.i32x4.splat(label))];
      for (let k = 0; k < bytes; k += 4) {
        const a = byteAt(g, ptr, offset + k);
        out.push(module.v128.store(a.offset, 1, a.ptr, module.local.get(t, binaryen.v128)));
      }
      return out;
    },
    copy(g, dst, src, n) {
      const { module } = g;
      const scaled = (e: Expr) => module.i32.add(module.i32.shl(e, module.i32.const(2)), module.i32.const(S | 0));
      return module.memory.copy(scaled(dst), scaled(src), module.i32.shl(n, module.i32.const(2)));
    },
    fill(g, dst, label, n) {
      const { module } = g;
      const scaled = module.i32.add(module.i32.shl(dst, module.i32.const(2)), module.i32.const(S | 0));
      return module.call(FILL_WORDS_FUNCTION, [scaled, label, module.i32.shl(n, module.i32.const(2))], binaryen.none);
    },
    isLabelLoad: () => false,
    isAlignmentCheck: () => false,
    markLabelLoad: () => {},
    markAlignmentCheck: () => {},
    addHelpers(module) {
      addFillWords(module);
    },
  };
}
