// A reader for DWARF `.debug_line` (versions 2–5, 32- and 64-bit units) as clang emits it for wasm32
// with -g. Runs the line-number state machine and returns each sequence's rows. In Wasm, addresses
// are offsets into the Code section payload (WebAssembly tool-conventions, Debugging.md).
import { ByteReader } from '../wasm-reader.js';

export interface LineRow {
  address: number;
  file: string;
  line: number;
  column: number;
}

export interface LineSequence {
  start: number;
  /** One past the last address (the end_sequence row). */
  end: number;
  rows: LineRow[];
}

export interface StringSections {
  debugStr?: Uint8Array | null;
  debugLineStr?: Uint8Array | null;
}

const DW_FORM = {
  block: 0x09,
  data1: 0x0b,
  data2: 0x05,
  data4: 0x06,
  data8: 0x07,
  data16: 0x1e,
  string: 0x08,
  strp: 0x0e,
  line_strp: 0x1f,
  udata: 0x0f,
  strx: 0x1a,
  strx1: 0x25,
  strx2: 0x26,
  strx4: 0x28,
} as const;
const DW_LNCT = { path: 1, directoryIndex: 2 } as const;

export function readDebugLine(section: Uint8Array, strings: StringSections = {}): LineSequence[] {
  const reader = new ByteReader(section);
  const sequences: LineSequence[] = [];
  while (!reader.done) {
    let unitLength = reader.u32();
    let offsetSize = 4;
    if (unitLength === 0xffffffff) {
      unitLength = reader.u64();
      offsetSize = 8;
    }
    const unitEnd = reader.pos + unitLength;
    readUnit(new ByteReader(section.subarray(0, unitEnd), reader.pos), offsetSize, strings, sequences);
    reader.pos = unitEnd;
  }
  return sequences;
}

function readUnit(reader: ByteReader, offsetSize: number, strings: StringSections, out: LineSequence[]): void {
  const offset = () => (offsetSize === 8 ? reader.u64() : reader.u32());
  const version = reader.u16();
  if (version < 2 || version > 5) throw new Error(`unsupported .debug_line version ${version}`);
  let addressSize = 4;
  if (version >= 5) {
    addressSize = reader.u8();
    reader.u8(); // segment selector size
  }
  const headerLength = offset();
  const programStart = reader.pos + headerLength;
  const minInstLength = reader.u8();
  if (version >= 4) reader.u8(); // maximum operations per instruction (VLIW only)
  const defaultIsStmt = reader.u8() !== 0;
  void defaultIsStmt;
  const lineBase = (reader.u8() << 24) >> 24;
  const lineRange = reader.u8();
  const opcodeBase = reader.u8();
  const standardLengths: number[] = [];
  for (let i = 1; i < opcodeBase; i++) standardLengths.push(reader.u8());

  let files: string[];
  if (version >= 5) {
    const readString = (form: number): string => stringForm(reader, form, offset, strings);
    const directories = entryTable(reader, readString, offset).map((e) => e.path ?? '');
    files = entryTable(reader, readString, offset).map((e) => joinPath(directories[e.dir ?? 0] ?? '', e.path ?? '?'));
  } else {
    const directories = [''];
    for (let dir = reader.cstring(); dir !== ''; dir = reader.cstring()) directories.push(dir);
    files = ['?'];
    for (let name = reader.cstring(); name !== ''; name = reader.cstring()) {
      const dir = reader.uleb();
      reader.uleb();
      reader.uleb();
      files.push(joinPath(directories[dir] ?? '', name));
    }
  }
  reader.pos = programStart;
  runProgram(reader, { minInstLength, lineBase, lineRange, opcodeBase, standardLengths, files, addressSize }, out);
}

/** v5 directory or file table: a format description, then the entries. */
function entryTable(
  reader: ByteReader,
  readString: (form: number) => string,
  offset: () => number,
): Array<{ path?: string; dir?: number }> {
  const formatCount = reader.u8();
  const format: Array<[number, number]> = [];
  for (let i = 0; i < formatCount; i++) format.push([reader.uleb(), reader.uleb()]);
  const count = reader.uleb();
  const entries: Array<{ path?: string; dir?: number }> = [];
  for (let i = 0; i < count; i++) {
    const entry: { path?: string; dir?: number } = {};
    for (const [content, form] of format) {
      if (content === DW_LNCT.path) entry.path = readString(form);
      else if (content === DW_LNCT.directoryIndex) entry.dir = numberForm(reader, form);
      else skipForm(reader, form, offset);
    }
    entries.push(entry);
  }
  return entries;
}

function stringForm(reader: ByteReader, form: number, offset: () => number, strings: StringSections): string {
  if (form === DW_FORM.string) return reader.cstring();
  if (form === DW_FORM.line_strp || form === DW_FORM.strp) {
    const table = form === DW_FORM.line_strp ? strings.debugLineStr : strings.debugStr;
    const at = offset();
    if (!table) return '?';
    return new ByteReader(table, at).cstring();
  }
  skipForm(reader, form, offset);
  return '?';
}

function numberForm(reader: ByteReader, form: number): number {
  switch (form) {
    case DW_FORM.data1:
      return reader.u8();
    case DW_FORM.data2:
      return reader.u16();
    case DW_FORM.data4:
      return reader.u32();
    case DW_FORM.data8:
      return reader.u64();
    case DW_FORM.udata:
      return reader.uleb();
    default:
      throw new Error(`unsupported DWARF form 0x${form.toString(16)} for a number`);
  }
}

function skipForm(reader: ByteReader, form: number, offset: () => number): void {
  switch (form) {
    case DW_FORM.string:
      reader.cstring();
      return;
    case DW_FORM.strp:
    case DW_FORM.line_strp:
      offset();
      return;
    case DW_FORM.data16:
      reader.skip(16);
      return;
    case DW_FORM.block:
      reader.skip(reader.uleb());
      return;
    case DW_FORM.strx:
      reader.uleb();
      return;
    case DW_FORM.strx1:
      reader.skip(1);
      return;
    case DW_FORM.strx2:
      reader.skip(2);
      return;
    case DW_FORM.strx4:
      reader.skip(4);
      return;
    default:
      numberForm(reader, form);
  }
}

/** `dir/name`, without the `./` that -fdebug-prefix-map=ROOT=. leaves in front. */
function joinPath(dir: string, name: string): string {
  const path = name.startsWith('/') || dir === '' || dir === '.' ? name : `${dir.replace(/\/+$/, '')}/${name}`;
  return path.replace(/^(\.\/)+/, '');
}

interface Header {
  minInstLength: number;
  lineBase: number;
  lineRange: number;
  opcodeBase: number;
  standardLengths: number[];
  files: string[];
  addressSize: number;
}

function runProgram(reader: ByteReader, h: Header, out: LineSequence[]): void {
  let address = 0,
    file = 1,
    line = 1,
    column = 0;
  let rows: LineRow[] = [];
  const emit = () => rows.push({ address, file: h.files[file] ?? '?', line, column });
  const reset = () => {
    address = 0;
    file = 1;
    line = 1;
    column = 0;
  };
  while (!reader.done) {
    const opcode = reader.u8();
    if (opcode >= h.opcodeBase) {
      const adjusted = opcode - h.opcodeBase;
      address += Math.floor(adjusted / h.lineRange) * h.minInstLength;
      line += h.lineBase + (adjusted % h.lineRange);
      emit();
      continue;
    }
    switch (opcode) {
      case 0: {
        const length = reader.uleb();
        const end = reader.pos + length;
        const sub = reader.u8();
        if (sub === 1) {
          if (rows.length > 0) out.push({ start: rows[0]!.address, end: address, rows });
          rows = [];
          reset();
        } else if (sub === 2) {
          address = length - 1 === 8 ? reader.u64() : reader.u32();
        }
        reader.pos = end;
        break;
      }
      case 1:
        emit();
        break;
      case 2:
        address += reader.uleb() * h.minInstLength;
        break;
      case 3:
        line += reader.sleb();
        break;
      case 4:
        file = reader.uleb();
        break;
      case 5:
        column = reader.uleb();
        break;
      case 6:
      case 7:
      case 10:
      case 11:
        break;
      case 8:
        address += Math.floor((255 - h.opcodeBase) / h.lineRange) * h.minInstLength;
        break;
      case 9:
        address += reader.u16();
        break;
      default:
        for (let i = 0; i < (h.standardLengths[opcode - 1] ?? 0); i++) reader.uleb();
    }
  }
}
