// The entry-work module written by editing the input binary instead of emitting Binaryen's IR: the
// counters (entry-work.ts's, at the same offsets with the same values) and the memory layout
// (memory-layout.ts's `below` placement: every program access moved up by programBase, memory.size
// and memory.grow redirected to the program's own memory) go straight into the code section. On
// yosys, Binaryen's rewrite, validation and emit of the 30.8 MB module were 5 s of the 15 s this
// mode took; the edit is one pass over the bytes. Anything it does not know (atomics, multi-memory,
// an imported or missing memory, GC types, exceptions, a static offset pushed past 4 GiB, many
// locals) returns null and the module goes through Binaryen.
import { ByteReader, readSections, type Section } from './wasm-reader.js';
import { PAGE, type MemoryLayout } from './memory-plan.js';
import { FIT_LOCALS_ABOVE } from './engine-limits.js';
import { ENTRY_WORK_COUNTER_BYTES } from './passes/entry-work.js';
import { OUT_OF_ROOM_GLOBAL } from './reserved-names.js';
import { concat } from './binary-patch.js';
import { sleb, uleb } from '../src/util/leb128.js';

const SECTION = { custom: 0, type: 1, import: 2, function: 3, memory: 5, global: 6, export: 7, code: 10 } as const;
/** Known sections in the order the binary format requires (tags, 13, sit before globals; data count, 12, before code). */
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];
const I32 = 0x7f;
const I64 = 0x7e;
const FUNC_TYPE = 0x60;
/** Temporaries a function with bulk memory operations gets: the size, the second operand, the shifted address. */
const BULK_TEMPS = 3;

/** Per defined function (in order), the counter increments: at entry, and at each loop's top (binary order). */
export interface EntryWorkCounts {
  entry: number;
  loops: number[];
}

class Unsupported extends Error {}

/** The instrumented binary (before finishBinary), or why this module needs Binaryen's rewrite. */
export function patchEntryWork(
  bytes: Uint8Array,
  layout: MemoryLayout,
  counters: { base: number },
  counts: EntryWorkCounts[],
): { bytes: Uint8Array } | { refused: string } {
  if (layout.placement !== 'below') return { refused: `the ${layout.placement} placement` };
  try {
    return { bytes: patch(bytes, layout, counters.base, counts) };
  } catch (error) {
    if (error instanceof Unsupported) return { refused: error.message };
    throw error;
  }
}

interface ModuleShape {
  types: Array<{ params: number; results: number[]; paramTypes: number[] }>;
  importedFunctions: number;
  importedGlobals: number;
  functionTypes: number[];
  definedGlobals: number;
  hasMemory: boolean;
}

function patch(bytes: Uint8Array, layout: MemoryLayout, counterBase: number, counts: EntryWorkCounts[]): Uint8Array {
  const sections = readSections(bytes);
  const shape = readShape(bytes, sections);
  if (!shape.hasMemory) throw new Unsupported('no memory section');
  if (shape.functionTypes.length !== counts.length) throw new Unsupported('function count differs from the analysis');
  const globalBase = shape.importedGlobals + shape.definedGlobals;
  const g = { pages: globalBase, outOfRoom: globalBase + 1, bytes: globalBase + 2, bytes32: globalBase + 3 };
  const growIndex = shape.importedFunctions + shape.functionTypes.length;
  let growType = shape.types.findIndex(
    (t) => t.params === 1 && t.paramTypes[0] === I32 && t.results.length === 1 && t.results[0] === I32,
  );
  const newType = growType < 0;
  if (newType) growType = shape.types.length;
  // The sections this edit extends; a module without one of them goes through Binaryen.
  const has = (id: number) => sections.some((s) => s.id === id);
  if (![SECTION.type, SECTION.function, SECTION.code].every(has)) throw new Unsupported('no functions');
  const code = sections.find((s) => s.id === SECTION.code)!;
  const bodies = rewriteCode(bytes, code, shape, counts, {
    counterBase,
    programBase: layout.programBase,
    pagesGlobal: g.pages,
    growFunction: growIndex,
  });
  bodies.push(growBody(layout, g));
  const initialBytes = layout.programInitialPages * PAGE;
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  const emit = (id: number, content: Uint8Array[]) => {
    const length = content.reduce((n, c) => n + c.length, 0);
    parts.push(Uint8Array.of(id), leb(length), ...content);
  };
  /** A vector section with `added` entries appended. */
  const extend = (section: Section, added: Uint8Array[]) => {
    const reader = new ByteReader(bytes, section.contentStart);
    const count = reader.uleb();
    emit(section.id, [leb(count + added.length), bytes.subarray(reader.pos, section.end), ...added]);
  };
  let globalsDone = false;
  let exportsDone = false;
  for (const section of sections) {
    const id = section.id;
    if (id === SECTION.custom) {
      // Debug info would describe code that moved; names keep their indices.
      if (section.name === 'name') parts.push(bytes.subarray(section.offset, section.end));
      continue;
    }
    // A module without globals or exports gets the section where the binary format orders it.
    if (!globalsDone && ORDER.indexOf(id) > ORDER.indexOf(SECTION.global)) {
      emit(SECTION.global, [leb(4), ...newGlobals(layout, initialBytes)]);
      globalsDone = true;
    }
    if (!exportsDone && ORDER.indexOf(id) > ORDER.indexOf(SECTION.export)) {
      emit(SECTION.export, [leb(1), globalExport(g.outOfRoom)]);
      exportsDone = true;
    }
    if (id === SECTION.type && newType) extend(section, [funcType()]);
    else if (id === SECTION.function) extend(section, [leb(growType)]);
    else if (id === SECTION.global) {
      extend(section, newGlobals(layout, initialBytes));
      globalsDone = true;
    } else if (id === SECTION.export) {
      extend(section, [globalExport(g.outOfRoom)]);
      exportsDone = true;
    } else if (id === SECTION.code)
      emit(id, [leb(bodies.length), ...bodies.flatMap((body) => [leb(body.length), body])]);
    else parts.push(bytes.subarray(section.offset, section.end));
  }
  return concat(parts);
}

function funcType(): Uint8Array {
  return Uint8Array.of(FUNC_TYPE, 1, I32, 1, I32);
}

function newGlobals(layout: MemoryLayout, initialBytes: number): Uint8Array[] {
  const mutable = (type: number, init: number[]) => Uint8Array.of(type, 1, ...init, 0x0b);
  return [
    mutable(I32, [0x41, ...sleb(layout.programInitialPages)]),
    mutable(I32, [0x41, 0]),
    mutable(I64, [0x42, ...sleb64(initialBytes)]),
    mutable(I32, [0x41, ...sleb(initialBytes | 0)]),
  ];
}

function globalExport(index: number): Uint8Array {
  const name = new TextEncoder().encode(OUT_OF_ROOM_GLOBAL);
  return Uint8Array.from([...uleb(name.length), ...name, 0x03, ...uleb(index)]);
}

/** memory-layout.ts's MEMORY_GROW_FUNCTION, in bytes (the `below` placement). */
function growBody(
  layout: MemoryLayout,
  g: { pages: number; outOfRoom: number; bytes: number; bytes32: number },
): Uint8Array {
  const pages = [0x23, ...uleb(g.pages)];
  const code = [
    ...[1, 1, I32], // one i32 local: the pages before growing
    ...[0x20, 0, 0x41, ...sleb(layout.programLimitPages), ...pages, 0x6b, 0x4b, 0x04, 0x40],
    ...[0x20, 0, 0x41, ...sleb(layout.programMaxPages), ...pages, 0x6b, 0x4b, 0x04, 0x40],
    ...[0x41, 0x7f, 0x0f],
    ...[0x05, 0x41, 1, 0x24, ...uleb(g.outOfRoom), 0x00, 0x0b],
    0x0b,
    ...[...pages, 0x21, 1],
    ...[0x20, 0, 0x40, 0, 0x41, 0x7f, 0x46, 0x04, 0x40, 0x41, 0x7f, 0x0f, 0x0b],
    ...[...pages, 0x20, 0, 0x6a, 0x24, ...uleb(g.pages)],
    ...[...pages, 0xad, 0x42, ...sleb(PAGE), 0x7e, 0x24, ...uleb(g.bytes)],
    ...[...pages, 0x41, ...sleb(PAGE), 0x6c, 0x24, ...uleb(g.bytes32)],
    ...[0x20, 1, 0x0b],
  ];
  return Uint8Array.from(code);
}

function readShape(bytes: Uint8Array, sections: Section[]): ModuleShape {
  const shape: ModuleShape = {
    types: [],
    importedFunctions: 0,
    importedGlobals: 0,
    functionTypes: [],
    definedGlobals: 0,
    hasMemory: false,
  };
  for (const section of sections) {
    const r = new ByteReader(bytes, section.contentStart);
    if (section.id === SECTION.type) {
      const count = r.uleb();
      for (let i = 0; i < count; i++) {
        if (r.u8() !== FUNC_TYPE) throw new Unsupported('a type other than a function type (GC)');
        const paramTypes = valueTypes(r);
        shape.types.push({ params: paramTypes.length, paramTypes, results: valueTypes(r) });
      }
    } else if (section.id === SECTION.import) {
      const count = r.uleb();
      for (let i = 0; i < count; i++) {
        r.name();
        r.name();
        const kind = r.u8();
        if (kind === 0) {
          r.uleb();
          shape.importedFunctions++;
        } else if (kind === 3) {
          valueType(r);
          r.u8();
          shape.importedGlobals++;
        } else throw new Unsupported('an imported table or memory'); // an imported table or memory: Binaryen's path says what it does with it
      }
    } else if (section.id === SECTION.function) {
      const count = r.uleb();
      for (let i = 0; i < count; i++) shape.functionTypes.push(r.uleb());
    } else if (section.id === SECTION.memory) {
      const count = r.uleb();
      if (count !== 1 || (bytes[r.pos]! & ~1) !== 0)
        throw new Unsupported('several memories, or a shared or 64-bit memory'); // several, shared or 64-bit
      shape.hasMemory = true;
    } else if (section.id === SECTION.global) {
      shape.definedGlobals = r.uleb();
    }
  }
  return shape;
}

function valueType(r: ByteReader): number {
  const type = r.u8();
  if (type < 0x6f || type > 0x7f) throw new Unsupported('a value type other than numbers, v128 and references');
  return type;
}

function valueTypes(r: ByteReader): number[] {
  const count = r.uleb();
  const types: number[] = [];
  for (let i = 0; i < count; i++) types.push(valueType(r));
  return types;
}

interface CodeTargets {
  counterBase: number;
  programBase: number;
  pagesGlobal: number;
  growFunction: number;
}

function rewriteCode(
  bytes: Uint8Array,
  code: Section,
  shape: ModuleShape,
  counts: EntryWorkCounts[],
  targets: CodeTargets,
): Uint8Array[] {
  const r = new ByteReader(bytes, code.contentStart);
  const count = r.uleb();
  if (count !== counts.length) throw new Unsupported('body count differs from the analysis');
  const bodies: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const size = r.uleb();
    const end = r.pos + size;
    const params = shape.types[shape.functionTypes[i]!]!.params;
    bodies.push(rewriteBody(bytes, r, end, params, i, counts[i]!, targets));
    r.pos = end;
  }
  return bodies;
}

function counterAdd(offset: number, by: number): number[] {
  const at = uleb(offset);
  return [0x41, 0, 0x41, 0, 0x29, 3, ...at, 0x42, ...sleb64(by), 0x7c, 0x37, 3, ...at];
}

function rewriteBody(
  bytes: Uint8Array,
  r: ByteReader,
  end: number,
  params: number,
  index: number,
  counts: EntryWorkCounts,
  targets: CodeTargets,
): Uint8Array {
  const bodyStart = r.pos;
  const groups = r.uleb();
  let locals = 0;
  for (let k = 0; k < groups; k++) {
    locals += r.uleb();
    valueType(r);
  }
  const localsEnd = r.pos;
  const counterOffset = targets.counterBase + index * ENTRY_WORK_COUNTER_BYTES;
  const temp = params + locals;
  const out: Array<Uint8Array | number[]> = [];
  let copied = r.pos;
  let loops = 0;
  let bulk = false;
  /** Copies the input up to `at` and then `replacement` (the input from `at` to `resume` is dropped). */
  const edit = (at: number, resume: number, replacement: number[]) => {
    if (at > copied) out.push(bytes.subarray(copied, at));
    out.push(replacement);
    copied = resume;
  };
  /** A memarg at r.pos: its static offset moved up by programBase. */
  const relocate = () => {
    const align = r.uleb();
    if (align & 0x40) throw new Unsupported('a memory index (multi-memory)'); // a memory index: multi-memory
    const at = r.pos;
    const offset = r.uleb() + targets.programBase;
    if (offset > 0xffffffff) throw new Unsupported('a static offset past 4 GiB once moved');
    edit(at, r.pos, uleb(offset));
  };
  // address -> (a = address + base) >= base ? a : -1, as relocateAccess's select (a wrapped address stays out of bounds).
  const shifted = () => [
    ...[0x41, ...sleb(targets.programBase), 0x6a, 0x22, ...uleb(temp + 2), 0x41, 0x7f],
    ...[0x20, ...uleb(temp + 2), 0x41, ...sleb(targets.programBase), 0x4f, 0x1b],
  ];
  out.push(counterAdd(counterOffset, counts.entry));
  while (r.pos < end) {
    const at = r.pos;
    const op = r.u8();
    switch (op) {
      case 0x03: // loop
        blockType(r);
        if (loops >= counts.loops.length) throw new Unsupported('more loops than Binaryen read'); // not Binaryen's loops one to one
        edit(r.pos, r.pos, counterAdd(counterOffset, counts.loops[loops++]!));
        break;
      case 0x02:
      case 0x04:
        blockType(r);
        break;
      case 0x0c:
      case 0x0d:
      case 0x10:
      case 0x20:
      case 0x21:
      case 0x22:
      case 0x23:
      case 0x24:
      case 0x25:
      case 0x26:
      case 0xd2:
        r.uleb();
        break;
      case 0x0e: {
        const n = r.uleb();
        for (let k = 0; k <= n; k++) r.uleb();
        break;
      }
      case 0x11:
        r.uleb();
        r.uleb();
        break;
      case 0x1c: {
        const n = r.uleb();
        for (let k = 0; k < n; k++) valueType(r);
        break;
      }
      case 0x3f: // memory.size
        if (r.u8() !== 0) throw new Unsupported('memory.size of another memory');
        edit(at, r.pos, [0x23, ...uleb(targets.pagesGlobal)]);
        break;
      case 0x40: // memory.grow
        if (r.u8() !== 0) throw new Unsupported('memory.grow of another memory');
        edit(at, r.pos, [0x10, ...uleb(targets.growFunction)]);
        break;
      case 0x41:
      case 0x42:
        r.sleb();
        break;
      case 0x43:
        r.skip(4);
        break;
      case 0x44:
        r.skip(8);
        break;
      case 0xd0:
        valueType(r);
        break;
      case 0xfc: {
        const sub = r.uleb();
        if (sub <= 7) break;
        if (sub === 8 || sub === 10 || sub === 11) {
          // memory.init / copy / fill: the destination (and copy's source) moved up, out of bounds kept out of bounds.
          bulk = true;
          if (sub === 8) r.uleb();
          if (r.u8() !== 0 || (sub === 10 && r.u8() !== 0)) throw new Unsupported('a bulk operation on another memory');
          const size = temp;
          const second = temp + 1;
          const op = bytes.subarray(at, r.pos);
          const sourceShifted = sub === 10;
          edit(at, r.pos, [
            ...[0x21, ...uleb(size)],
            ...(sourceShifted ? shifted() : []),
            ...[0x21, ...uleb(second)],
            ...shifted(),
            ...[0x20, ...uleb(second), 0x20, ...uleb(size)],
            ...op,
          ]);
          break;
        }
        const immediates: Record<number, number> = { 9: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 };
        const n = immediates[sub];
        if (n === undefined) throw new Unsupported(`the instruction 0xfc ${sub}`);
        for (let k = 0; k < n; k++) r.uleb();
        break;
      }
      case 0xfd: {
        const sub = r.uleb();
        if (sub <= 11 || sub === 92 || sub === 93) relocate();
        else if (sub >= 84 && sub <= 91) {
          relocate();
          r.skip(1);
        } else if (sub === 12 || sub === 13) r.skip(16);
        else if (sub >= 21 && sub <= 34) r.skip(1);
        else if (sub > 275) throw new Unsupported(`the instruction 0xfd ${sub}`);
        break;
      }
      default:
        if (op >= 0x28 && op <= 0x3e) relocate();
        else if (!(op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b))
          if (!(op >= 0x45 && op <= 0xc4) && op !== 0xd1)
            throw new Unsupported(`the instruction 0x${op.toString(16)} (exceptions, tail calls, GC, atomics)`); // exceptions, tail calls, GC, atomics
    }
  }
  if (r.pos !== end) throw new Error(`internal: function ${index}'s body ends past its size`);
  if (loops !== counts.loops.length) throw new Unsupported('fewer loops than Binaryen read');
  out.push(bytes.subarray(copied, end));
  const head: number[] = [];
  if (bulk) {
    if (params + locals + BULK_TEMPS > FIT_LOCALS_ABOVE)
      throw new Unsupported('more locals than the engine-limit fitting leaves alone');
    head.push(...uleb(groups + 1));
    out.unshift(bytes.subarray(bodyStart + uleb(groups).length, localsEnd), [...uleb(BULK_TEMPS), I32]);
    return concat([Uint8Array.from(head), ...out.map(asBytes)]);
  }
  if (params + locals > FIT_LOCALS_ABOVE)
    throw new Unsupported('more locals than the engine-limit fitting leaves alone');
  return concat([bytes.subarray(bodyStart, localsEnd), ...out.map(asBytes)]);
}

function asBytes(part: Uint8Array | number[]): Uint8Array {
  return part instanceof Uint8Array ? part : Uint8Array.from(part);
}

function blockType(r: ByteReader): void {
  const type = r.u8();
  if (type === 0x40 || (type >= 0x6f && type <= 0x7f)) return;
  // A type index (multi-value): a signed LEB starting with this byte.
  r.pos--;
  if (r.sleb() < 0) throw new Unsupported('a multi-value block type');
}

const leb = (value: number) => Uint8Array.from(uleb(value));

/** Signed LEB128 of a non-negative integer up to 2^53. */
function sleb64(value: number): number[] {
  const bytes: number[] = [];
  let big = BigInt(value);
  for (;;) {
    const byte = Number(big & 0x7fn);
    big >>= 7n;
    if ((big === 0n && !(byte & 0x40)) || (big === -1n && byte & 0x40)) {
      bytes.push(byte);
      return bytes;
    }
    bytes.push(byte | 0x80);
  }
}
