// Instrumentation data (counters, context trees, shadow memory) lives inside the module's own memory,
// because Node 20 has no multi-memory. The program keeps addresses [0, limit); our regions sit above
// `limit`. The real memory is sized for both from the start, and memory.size / memory.grow are
// rewritten to report and grow only the program's part, so the program never sees our data.
import binaryen from 'binaryen';
import { Id, childSlots, idOf, Func, type Expr } from './ir.js';

export const PAGE = 65536;
const MAX_PAGES = 65536;

export interface RegionRequest {
  name: string;
  /** Fixed size in bytes. */
  bytes?: number;
  /** Size proportional to the program's memory limit (e.g. 4 for a 4-byte label per program byte). */
  perProgramByte?: number;
}

export interface MemoryLayout {
  /** Pages the program may use at most (its logical memory limit). */
  programLimitPages: number;
  /** Pages the program starts with. */
  programInitialPages: number;
  /** Byte address where each region starts. */
  regions: Record<string, { base: number; bytes: number }>;
  /** Pages of the real memory: program limit plus regions. */
  totalPages: number;
}

export const PROGRAM_PAGES_GLOBAL = 'taintlens$program_pages';
export const MEMORY_GROW_FUNCTION = 'taintlens$memory_grow';

export interface LayoutOptions {
  /** Upper bound for the program's memory in pages (default 16384 = 1 GiB). */
  programLimitPages?: number;
}

export function planMemoryLayout(module: binaryen.Module, requests: RegionRequest[], options: LayoutOptions = {}): MemoryLayout {
  const info = module.hasMemory() ? module.getMemoryInfo() : null;
  if (info?.module) throw new Error('modules that import their memory cannot be instrumented in this mode yet');
  if (info?.shared) throw new Error('shared memories cannot be instrumented in this mode yet');
  const initial = info?.initial ?? 0;
  const declaredMax = info?.max ?? MAX_PAGES;
  const regionsWanted = requests.reduce((sum, r) => sum + (r.perProgramByte ?? 0), 0);
  let limit = Math.min(declaredMax, options.programLimitPages ?? 16384);
  if (regionsWanted > 0) limit = Math.min(limit, Math.floor((MAX_PAGES - 64) / (1 + regionsWanted)));
  limit = Math.max(limit, initial);
  let cursor = limit * PAGE;
  const regions: MemoryLayout['regions'] = {};
  for (const request of requests) {
    const bytes = align(request.bytes ?? Math.ceil(limit * PAGE * (request.perProgramByte ?? 0)), 16);
    regions[request.name] = { base: cursor, bytes };
    cursor += bytes;
  }
  const totalPages = Math.ceil(cursor / PAGE);
  if (totalPages > MAX_PAGES) {
    throw new Error(`the program's memory (${initial} pages) leaves no room for instrumentation data`);
  }
  return { programLimitPages: limit, programInitialPages: initial, regions, totalPages };
}

/** Redirects memory.size and memory.grow to the program's logical memory, and makes sure a memory exists. */
export function applyMemoryLayout(module: binaryen.Module, layout: MemoryLayout): void {
  if (!module.hasMemory()) module.setMemory(layout.totalPages, layout.totalPages, null);
  module.addGlobal(PROGRAM_PAGES_GLOBAL, binaryen.i32, true, module.i32.const(layout.programInitialPages));
  const delta = () => module.local.get(0, binaryen.i32);
  const pages = () => module.global.get(PROGRAM_PAGES_GLOBAL, binaryen.i32);
  module.addFunction(
    MEMORY_GROW_FUNCTION, binaryen.i32, binaryen.i32, [binaryen.i32],
    module.block(null, [
      module.if(
        module.i32.gt_u(delta(), module.i32.sub(module.i32.const(layout.programLimitPages), pages())),
        module.return(module.i32.const(-1)),
      ),
      module.local.set(1, pages()),
      module.global.set(PROGRAM_PAGES_GLOBAL, module.i32.add(pages(), delta())),
      module.local.get(1, binaryen.i32),
    ], binaryen.i32),
  );
  for (const func of definedFunctions(module)) {
    if (Func.getName(func) === MEMORY_GROW_FUNCTION) continue;
    const body = Func.getBody(func);
    if (!body) continue;
    const replaced = rewriteMemoryOps(module, body);
    if (replaced !== body) Func.setBody(func, replaced);
  }
}

function rewriteMemoryOps(module: binaryen.Module, root: Expr): Expr {
  const replaceIn = (expr: Expr): Expr => {
    for (const slot of childSlots(expr)) {
      const next = replaceIn(slot.expr);
      if (next !== slot.expr) slot.replace(next);
    }
    const id = idOf(expr);
    if (id === Id.MemorySize) return module.global.get(PROGRAM_PAGES_GLOBAL, binaryen.i32);
    if (id === Id.MemoryGrow) {
      const delta = (binaryen as unknown as { MemoryGrow: { getDelta(e: Expr): Expr } }).MemoryGrow.getDelta(expr);
      return module.call(MEMORY_GROW_FUNCTION, [delta], binaryen.i32);
    }
    return expr;
  };
  return replaceIn(root);
}

export function definedFunctions(module: binaryen.Module): number[] {
  const funcs: number[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const func = module.getFunctionByIndex(i);
    if (!binaryen.getFunctionInfo(func).module) funcs.push(func);
  }
  return funcs;
}

/** Sets the limits of memory 0 in an emitted binary (Binaryen cannot resize an existing memory). */
export function patchMemoryLimits(bytes: Uint8Array, pages: number): Uint8Array {
  const reader = { pos: 8 };
  while (reader.pos < bytes.length) {
    const sectionId = bytes[reader.pos++]!;
    const sizeStart = reader.pos;
    const size = readLeb(bytes, reader);
    const contentStart = reader.pos;
    if (sectionId === 5) {
      const inner = { pos: contentStart };
      const count = readLeb(bytes, inner);
      if (count < 1) break;
      const limitsStart = inner.pos;
      const flags = bytes[inner.pos++]!;
      readLeb(bytes, inner);
      if (flags & 1) readLeb(bytes, inner);
      const rest = bytes.subarray(inner.pos, contentStart + size);
      const newContent = concat([encodeLeb(count), Uint8Array.of(1), encodeLeb(pages), encodeLeb(pages), rest]);
      void limitsStart;
      return concat([
        bytes.subarray(0, sizeStart),
        encodeLeb(newContent.length),
        newContent,
        bytes.subarray(contentStart + size),
      ]);
    }
    reader.pos = contentStart + size;
  }
  throw new Error('internal: emitted module has no memory section');
}

function readLeb(bytes: Uint8Array, cursor: { pos: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[cursor.pos++]!;
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7;
  }
}

function encodeLeb(value: number): Uint8Array {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Uint8Array.from(out);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}
