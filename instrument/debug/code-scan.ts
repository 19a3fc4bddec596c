// Walks the Code section instruction by instruction and records where each function body, `loop`,
// call and conditional branch sits in the file. Binaryen's IR has no binary offsets, but it keeps
// loops and calls 1:1 and in order, so the k-th `loop` opcode of a body is the k-th Loop of the
// function's pre-order walk (instrument/sites.ts) and the k-th call the k-th Call of its post-order.
import { ByteReader, readSections } from '../wasm-reader.js';

export interface FunctionOffsets {
  /** File offsets: the body (its local declarations) and the first instruction. */
  bodyStart: number;
  codeStart: number;
  bodyEnd: number;
  loops: number[];
  calls: number[];
  /** Per loop, the branches back to its header (br, br_if, br_table), in binary order. */
  backEdges: number[][];
  /** `if`, `br_if` and `br_table`, in binary order. */
  branches: number[];
}

/** Open control frames of the body being scanned: a loop's ordinal, or -1 for other frames. */
type ControlStack = number[];

export interface CodeOffsets {
  /** File offset of the Code section payload: DWARF addresses count from here. */
  sectionStart: number;
  functions: FunctionOffsets[];
}

export function scanCode(bytes: Uint8Array): CodeOffsets | null {
  const code = readSections(bytes).find((s) => s.id === 10);
  if (!code) return null;
  const reader = new ByteReader(bytes, code.start);
  const count = reader.uleb();
  const functions: FunctionOffsets[] = [];
  for (let i = 0; i < count; i++) {
    const size = reader.uleb();
    const bodyStart = reader.pos;
    const bodyEnd = bodyStart + size;
    const groups = reader.uleb();
    for (let g = 0; g < groups; g++) {
      reader.uleb();
      readValueType(reader);
    }
    const fn: FunctionOffsets = {
      bodyStart,
      codeStart: reader.pos,
      bodyEnd,
      loops: [],
      backEdges: [],
      calls: [],
      branches: [],
    };
    const stack: ControlStack = [-1];
    while (reader.pos < bodyEnd) scanInstruction(reader, fn, stack);
    reader.pos = bodyEnd;
    functions.push(fn);
  }
  return { sectionStart: code.start, functions };
}

function readValueType(reader: ByteReader): void {
  const type = reader.u8();
  // (ref null? ht) carries a heap type.
  if (type === 0x63 || type === 0x64) reader.sleb();
}

function memarg(reader: ByteReader): void {
  const align = reader.uleb();
  if (align & 0x40) reader.uleb();
  reader.uleb();
}

function scanInstruction(reader: ByteReader, fn: FunctionOffsets, stack: ControlStack): void {
  const at = reader.pos;
  const op = reader.u8();
  const branchTo = (depth: number) => {
    const loop = stack[stack.length - 1 - depth];
    if (loop !== undefined && loop >= 0) fn.backEdges[loop]!.push(at);
  };
  switch (op) {
    case 0x03:
      stack.push(fn.loops.length);
      fn.loops.push(at);
      fn.backEdges.push([]);
      reader.sleb();
      return;
    case 0x04:
      fn.branches.push(at);
      stack.push(-1);
      reader.sleb();
      return;
    case 0x02:
    case 0x06:
      stack.push(-1);
      reader.sleb();
      return;
    case 0x0b:
      stack.pop();
      return;
    case 0x0c:
      branchTo(reader.uleb());
      return;
    case 0x0d:
      fn.branches.push(at);
      branchTo(reader.uleb());
      return;
    case 0x0e: {
      fn.branches.push(at);
      const targets = reader.uleb();
      const seen = new Set<number>();
      for (let i = 0; i <= targets; i++) seen.add(reader.uleb());
      for (const depth of seen) branchTo(depth);
      return;
    }
    case 0x18:
      stack.pop();
      reader.uleb();
      return;
    case 0x10:
    case 0x11:
    case 0x12:
    case 0x13:
      if (op === 0x10 || op === 0x11) fn.calls.push(at);
      reader.uleb();
      if (op === 0x11 || op === 0x13) reader.uleb();
      return;
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
    case 0x25:
    case 0x26:
    case 0x3f:
    case 0x40:
    case 0xd2:
      reader.uleb();
      return;
    case 0x1c: {
      const types = reader.uleb();
      for (let i = 0; i < types; i++) readValueType(reader);
      return;
    }
    case 0x41:
      reader.sleb();
      return;
    case 0x42:
      reader.sleb();
      return;
    case 0x43:
      reader.skip(4);
      return;
    case 0x44:
      reader.skip(8);
      return;
    case 0xd0:
      reader.sleb();
      return;
    case 0xfc:
      return prefixFC(reader);
    case 0xfd:
      return prefixSIMD(reader);
    case 0xfe:
      return prefixAtomic(reader);
    default:
      if (op >= 0x28 && op <= 0x3e) memarg(reader);
      else if (op > 0xd2 && op !== 0xd1) throw new Error(`unknown opcode 0x${op.toString(16)} at offset ${at}`);
  }
}

function prefixFC(reader: ByteReader): void {
  const sub = reader.uleb();
  if (sub <= 7) return;
  const immediates: Record<number, number> = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 };
  const count = immediates[sub];
  if (count === undefined) throw new Error(`unknown opcode 0xfc ${sub}`);
  for (let i = 0; i < count; i++) reader.uleb();
}

function prefixSIMD(reader: ByteReader): void {
  const sub = reader.uleb();
  if (sub <= 11 || sub === 92 || sub === 93) memarg(reader);
  else if (sub === 12 || sub === 13) reader.skip(16);
  else if (sub >= 21 && sub <= 34) reader.skip(1);
  else if (sub >= 84 && sub <= 91) {
    memarg(reader);
    reader.skip(1);
  }
}

function prefixAtomic(reader: ByteReader): void {
  const sub = reader.uleb();
  if (sub === 3) reader.skip(1);
  else memarg(reader);
}
