// Keeps instrumented functions inside the limits engines put on a function: V8 refuses to compile a
// function with more than 50,000 locals (params included) or a body over 7,654,321 bytes. Flattening
// and shadow locals multiply a large function's locals (the taint pass gives a 50 kB function of
// nextpnr 33,689; yosys's largest is four times that), and Binaryen's coalesce-locals, which would
// merge them, is quadratic in them.
//
// `fitLocals` is the cheap merge that remains possible in linear time: a local whose first use (in
// evaluation order) is a `local.set` standing directly in a block, and whose every other use lies
// in that block's later children (not inside the set's own value), is written before it is read
// on every path and dead outside the span of children from that set to its last use: nothing can
// enter those children but through the set (blocks and loops are entered at their start). Two such
// locals of one type whose spans do not overlap never hold a live value at the same time, so they
// share an index (interval partitioning over the spans' pre-order ranges); Binaryen's
// reorder-locals then drops the indices left unused. Flattening's temporaries and the shadow-label
// temporaries are all of this kind.
//
// Functions are fitted from FIT_LOCALS_ABOVE locals on, far below the engine's limit: the taint pass
// skips Binaryen's coalescing above that many (taint-optimize.ts), and what V8 then spends
// compiling such a function grows with locals times blocks (Liftoff's memory, TurboFan's time: see
// src/runtime/lazy-tier.ts). On nextpnr's taint module fitting from 2,000 took the 80 functions over
// it from up to 32,345 locals to at most 3,369, cost 8 s more instrumentation CPU (+10%), and halved
// the taint run (26.3 → 12.8 s, peak RSS 1.46 → 0.97 GB), the report identical.
import binaryen from 'binaryen';
import { Func, Id, LocalGet, LocalSet, children, idOf, type Expr, type Type } from './ir.js';
import { ByteReader, readSections } from './wasm-reader.js';

/** V8's limits (src/wasm/wasm-limits.h): kV8MaxWasmFunctionLocals, kV8MaxWasmFunctionSize. */
export const ENGINE_LIMITS = { locals: 50_000, functionBytes: 7_654_321 } as const;

/** Locals above which a function is fitted (see the header); the taint pass's coalescing limit. */
export const FIT_LOCALS_ABOVE = 2_000;

/** A function that stays above a limit after fitting: the caller names it in its error. */
export class EngineLimitExceeded extends Error {}

interface Frame {
  expr: Expr;
  pre: number;
  kids: Expr[] | null;
  next: number;
  isBlock: boolean;
}

const UNSEEN = 0;
const CANDIDATE = 1;
const REFUSED = 2;

/** Merges locals whose live spans are disjoint (see the header); returns how many locals the function lost. */
export function fitLocals(module: binaryen.Module, func: number): number {
  const params = binaryen.expandType(Func.getParams(func)).length;
  const total = Func.getNumLocals(func);
  const state = new Uint8Array(total);
  const setPre = new Int32Array(total);
  const blockPre = new Int32Array(total);
  const blockDepth = new Int32Array(total);
  const lastChildPre = new Int32Array(total);
  const uses: Array<Expr[] | undefined> = new Array<Expr[] | undefined>(total);
  const endOf: number[] = [];
  const stack: Frame[] = [];
  let counter = 0;
  const push = (expr: Expr) => {
    const pre = counter++;
    endOf.push(pre);
    stack.push({ expr, pre, kids: null, next: 0, isBlock: idOf(expr) === Id.Block });
    visit(expr, stack.length - 1);
  };
  const visit = (expr: Expr, depth: number) => {
    const id = idOf(expr);
    if (id !== Id.LocalGet && id !== Id.LocalSet) return;
    const local = (id === Id.LocalGet ? LocalGet : LocalSet).getIndex(expr);
    if (local < params || state[local] === REFUSED) return;
    if (state[local] === UNSEEN) {
      const parent = stack[depth - 1];
      if (id === Id.LocalSet && parent?.isBlock) {
        state[local] = CANDIDATE;
        setPre[local] = stack[depth]!.pre;
        blockPre[local] = parent.pre;
        blockDepth[local] = depth - 1;
        lastChildPre[local] = setPre[local]!;
        uses[local] = [expr];
      } else state[local] = REFUSED;
      return;
    }
    const block = stack[blockDepth[local]!];
    const child = stack[blockDepth[local]! + 1];
    if (!block || !child || block.pre !== blockPre[local] || child.pre === setPre[local]) {
      state[local] = REFUSED;
      uses[local] = undefined;
      return;
    }
    lastChildPre[local] = child.pre;
    uses[local]!.push(expr);
  };
  push(Func.getBody(func));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kids === null) top.kids = children(top.expr);
    if (top.next < top.kids.length) push(top.kids[top.next++]!);
    else {
      endOf[top.pre] = counter - 1;
      stack.pop();
    }
  }

  const spans: Array<{ local: number; start: number; end: number; type: Type }> = [];
  for (let local = params; local < total; local++) {
    if (state[local] !== CANDIDATE) continue;
    spans.push({
      local,
      start: setPre[local]!,
      end: endOf[lastChildPre[local]!]!,
      type: Func.getVar(func, local - params),
    });
  }
  spans.sort((a, b) => a.start - b.start);
  // Per type: slots in use ordered by the end of their span (a min-heap), and slots free again.
  const busy = new Map<Type, Array<{ end: number; slot: number }>>();
  const free = new Map<Type, number[]>();
  let merged = 0;
  for (const span of spans) {
    const heap = busy.get(span.type) ?? [];
    busy.set(span.type, heap);
    const idle = free.get(span.type) ?? [];
    free.set(span.type, idle);
    while (heap.length > 0 && heap[0]!.end < span.start) idle.push(popMin(heap).slot);
    const slot = idle.pop() ?? span.local;
    pushMin(heap, { end: span.end, slot });
    if (slot === span.local) continue;
    merged++;
    for (const use of uses[span.local]!) (idOf(use) === Id.LocalGet ? LocalGet : LocalSet).setIndex(use, slot);
  }
  if (merged === 0) return 0;
  // Drops the locals nothing uses any more.
  module.runPassesOnFunction(func, ['reorder-locals']);
  return total - Func.getNumLocals(func);
}

function pushMin(heap: Array<{ end: number; slot: number }>, item: { end: number; slot: number }): void {
  heap.push(item);
  let at = heap.length - 1;
  while (at > 0) {
    const up = (at - 1) >> 1;
    if (heap[up]!.end <= item.end) break;
    heap[at] = heap[up]!;
    at = up;
  }
  heap[at] = item;
}

function popMin(heap: Array<{ end: number; slot: number }>): { end: number; slot: number } {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length === 0) return top;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]!.end < heap[left]!.end ? right : left;
    if (heap[child]!.end >= last.end) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = last;
  return top;
}

/** A function the locals limit made `fitLocals` merge: its locals before and after. */
export interface FittedFunction {
  function: string;
  locals: number;
  fitted: number;
}

/** Fits every defined function over FIT_LOCALS_ABOVE locals; throws naming the first that stays over the engine's limit. */
export function fitEngineLimits(module: binaryen.Module): FittedFunction[] {
  const fitted: FittedFunction[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const func = module.getFunctionByIndex(i);
    const locals = Func.getNumLocals(func);
    if (locals <= FIT_LOCALS_ABOVE || !Func.getBody(func)) continue;
    fitLocals(module, func);
    const left = Func.getNumLocals(func);
    if (left > ENGINE_LIMITS.locals)
      throw new EngineLimitExceeded(
        `function ${Func.getName(func)} has ${left} locals after instrumentation, more than the ${ENGINE_LIMITS.locals} engines compile`,
      );
    fitted.push({ function: Func.getName(func), locals, fitted: left });
  }
  return fitted;
}

/** Throws naming the first defined function whose body is over the size engines compile. */
export function checkFunctionSizes(bytes: Uint8Array, module: binaryen.Module): void {
  const code = readSections(bytes).find((section) => section.id === 10);
  if (!code) return;
  const reader = new ByteReader(bytes, code.contentStart);
  const count = reader.uleb();
  for (let k = 0; k < count; k++) {
    const size = reader.uleb();
    if (size > ENGINE_LIMITS.functionBytes)
      throw new EngineLimitExceeded(
        `function ${definedFunctionNames(module)[k] ?? `#${k}`} is ${size} bytes after instrumentation, more than the ${ENGINE_LIMITS.functionBytes} engines compile`,
      );
    reader.skip(size);
  }
}

/** Names of the defined functions in code-section order (Binaryen lists imports among its functions). */
function definedFunctionNames(module: binaryen.Module): string[] {
  const names: string[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (!info.module) names.push(info.name);
  }
  return names;
}
