// The program's static variables from DWARF .debug_info (clang -g): each DW_TAG_variable whose
// location is a fixed address (DW_OP_addr, DWARF 5's DW_OP_addrx), with its name and byte size, so that blame can name the C
// global or `static` array an address falls into. Reads DWARF 4 and 5 units, 32-bit format.
import { ByteReader, customSection, readSections } from '../wasm-reader.js';

export interface StaticVariable {
  name: string;
  /** Linear-memory address of its first byte. */
  address: number;
  /** 0 when its type's size is not known. */
  bytes: number;
}

interface Abbrev {
  tag: number;
  children: boolean;
  attributes: Array<{ name: number; form: number; implicit: number }>;
}

type AttrValue = number | string | Uint8Array | StrIndex | LineStr;

interface Die {
  offset: number;
  tag: number;
  attributes: Map<number, AttrValue>;
}

const TAG = {
  variable: 0x34,
  arrayType: 0x01,
  subrange: 0x21,
  baseType: 0x24,
  structure: 0x13,
  union: 0x17,
  pointer: 0x0f,
  enumeration: 0x04,
  typedef: 0x16,
  constType: 0x26,
  volatileType: 0x35,
};
const AT = {
  location: 0x02,
  name: 0x03,
  byteSize: 0x0b,
  type: 0x49,
  upperBound: 0x2f,
  count: 0x37,
  declaration: 0x3c,
  strOffsetsBase: 0x72,
};
const DW_OP_ADDR = 0x03;
/** DWARF 5: an index into .debug_addr from the unit's DW_AT_addr_base. */
const DW_OP_ADDRX = 0xa1;
const AT_ADDR_BASE = 0x73;

/** Static variables sorted by address; empty without .debug_info. Throws on malformed DWARF. */
export function readStaticVariables(bytes: Uint8Array): StaticVariable[] {
  const sections = readSections(bytes);
  const info = customSection(bytes, sections, '.debug_info');
  const abbrev = customSection(bytes, sections, '.debug_abbrev');
  if (!info || !abbrev) return [];
  const strings = {
    str: customSection(bytes, sections, '.debug_str'),
    lineStr: customSection(bytes, sections, '.debug_line_str'),
    offsets: customSection(bytes, sections, '.debug_str_offsets'),
  };
  const addresses = customSection(bytes, sections, '.debug_addr');
  const out: StaticVariable[] = [];
  const reader = new ByteReader(info);
  while (!reader.done) {
    const unitStart = reader.pos;
    const length = reader.u32();
    if (length >= 0xfffffff0) throw new Error('.debug_info: 64-bit DWARF units are not supported');
    const unitEnd = reader.pos + length;
    const version = reader.u16();
    let abbrevOffset: number;
    if (version >= 5) {
      reader.u8(); // unit type
      reader.u8(); // address size
      abbrevOffset = reader.u32();
    } else {
      abbrevOffset = reader.u32();
      reader.u8();
    }
    const abbrevs = readAbbrevs(abbrev, abbrevOffset);
    const dies = new Map<number, Die>();
    while (reader.pos < unitEnd) {
      const offset = reader.pos - unitStart;
      const code = reader.uleb();
      if (code === 0) continue;
      const entry = abbrevs.get(code);
      if (!entry) throw new Error(`.debug_info: unknown abbreviation ${code} at 0x${reader.pos.toString(16)}`);
      const attributes = new Map<number, AttrValue>();
      for (const a of entry.attributes) attributes.set(a.name, readForm(reader, a.form, a.implicit, version));
      dies.set(offset, { offset, tag: entry.tag, attributes });
    }
    reader.pos = unitEnd;
    const unitDie = [...dies.values()][0];
    const strOffsetsBase = unitDie?.attributes.get(AT.strOffsetsBase);
    const addrBase = unitDie?.attributes.get(AT_ADDR_BASE);
    const staticAddress = (location: Uint8Array): number | null => {
      if (location.length === 5 && location[0] === DW_OP_ADDR) return new ByteReader(location, 1).u32();
      if (location[0] !== DW_OP_ADDRX || !addresses || typeof addrBase !== 'number') return null;
      const op = new ByteReader(location, 1);
      const index = op.uleb();
      return op.done ? new ByteReader(addresses, addrBase + index * 4).u32() : null;
    };
    const text = (value: AttrValue | undefined): string | null => {
      if (typeof value === 'string') return value;
      if (typeof value !== 'number') return null;
      return cstringAt(strings.str, value);
    };
    const name = (die: Die): string | null => {
      const raw = die.attributes.get(AT.name);
      if (raw instanceof StrIndex) {
        if (!strings.offsets || typeof strOffsetsBase !== 'number') return null;
        return cstringAt(strings.str, new ByteReader(strings.offsets, strOffsetsBase + raw.index * 4).u32());
      }
      if (raw instanceof LineStr) return cstringAt(strings.lineStr, raw.offset);
      return text(raw);
    };
    for (const die of dies.values()) {
      if (die.tag !== TAG.variable) continue;
      const location = die.attributes.get(AT.location);
      if (!(location instanceof Uint8Array)) continue;
      const address = staticAddress(location);
      const varName = name(die);
      // 0xffffffff…: the linker's tombstone for a variable it dropped.
      if (address === null || address >= 0xfffffff0 || !varName) continue;
      out.push({ name: varName, address, bytes: typeSize(die, dies, 0) });
    }
  }
  return out.sort((a, b) => a.address - b.address);
}

/** The static variable holding `address`: inside its bytes, or (size unknown) before the next one. */
export function staticVariableAt(variables: readonly StaticVariable[], address: number): StaticVariable | null {
  let low = 0,
    high = variables.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (variables[mid]!.address <= address) low = mid + 1;
    else high = mid;
  }
  const found = variables[low - 1];
  if (!found) return null;
  if (found.bytes > 0) return address < found.address + found.bytes ? found : null;
  const next = variables[low];
  return next === undefined || address < next.address ? found : null;
}

function typeSize(die: Die, dies: Map<number, Die>, depth: number): number {
  const ref = die.attributes.get(AT.type);
  if (typeof ref !== 'number' || depth > 16) return 0;
  const type = dies.get(ref);
  if (!type) return 0;
  const size = type.attributes.get(AT.byteSize);
  if (typeof size === 'number') return size;
  if (type.tag === TAG.arrayType) {
    const element = typeSize(type, dies, depth + 1);
    let count = 1;
    // Subranges are the array DIE's children: the DIEs that follow it.
    const ordered = [...dies.keys()].filter((o) => o > type.offset).sort((a, b) => a - b);
    for (const offset of ordered) {
      const child = dies.get(offset)!;
      if (child.tag !== TAG.subrange) break;
      const c = child.attributes.get(AT.count);
      const upper = child.attributes.get(AT.upperBound);
      if (typeof c === 'number') count *= c;
      else if (typeof upper === 'number') count *= upper + 1;
      else return 0;
    }
    return element * count;
  }
  if (type.tag === TAG.pointer) return 4;
  if (type.tag === TAG.typedef || type.tag === TAG.constType || type.tag === TAG.volatileType)
    return typeSize(type, dies, depth + 1);
  return 0;
}

function readAbbrevs(bytes: Uint8Array, offset: number): Map<number, Abbrev> {
  const reader = new ByteReader(bytes, offset);
  const out = new Map<number, Abbrev>();
  for (;;) {
    const code = reader.uleb();
    if (code === 0) return out;
    const tag = reader.uleb();
    const children = reader.u8() === 1;
    const attributes: Abbrev['attributes'] = [];
    for (;;) {
      const name = reader.uleb();
      const form = reader.uleb();
      if (name === 0 && form === 0) break;
      attributes.push({ name, form, implicit: form === 0x21 ? reader.sleb() : 0 });
    }
    out.set(code, { tag, children, attributes });
  }
}

class StrIndex {
  constructor(readonly index: number) {}
}
class LineStr {
  constructor(readonly offset: number) {}
}

/** An attribute's value: numbers and references as numbers (unit-relative), blocks as bytes. */
function readForm(r: ByteReader, form: number, implicit: number, version: number): AttrValue {
  const block = (length: number) => {
    const start = r.pos;
    r.skip(length);
    return r.bytes.subarray(start, start + length);
  };
  switch (form) {
    case 0x01:
      return r.u32(); // addr (wasm32)
    case 0x03:
      return block(r.u16());
    case 0x04:
      return block(r.u32());
    case 0x05:
      return r.u16();
    case 0x06:
      return r.u32();
    case 0x07:
      return r.u64();
    case 0x08:
      return r.cstring();
    case 0x09:
    case 0x18:
      return block(r.uleb()); // block, exprloc
    case 0x0a:
      return block(r.u8());
    case 0x0b:
      return r.u8();
    case 0x0c:
      return r.u8(); // flag
    case 0x0d:
      return r.sleb();
    case 0x0e:
      return r.u32(); // strp
    case 0x0f:
      return r.uleb();
    case 0x10:
      return r.u32(); // ref_addr
    case 0x11:
      return r.u8(); // ref1
    case 0x12:
      return r.u16();
    case 0x13:
      return r.u32(); // ref4
    case 0x14:
      return r.u64();
    case 0x15:
      return r.uleb(); // ref_udata
    case 0x16:
      return readForm(r, r.uleb(), implicit, version); // indirect
    case 0x17:
      return r.u32(); // sec_offset
    case 0x19:
      return 1; // flag_present
    case 0x1a:
      return new StrIndex(r.uleb());
    case 0x1b:
      return r.uleb(); // addrx
    case 0x1c:
      return r.u32(); // ref_sup4
    case 0x1d:
      return r.u32(); // strp_sup
    case 0x1e:
      return block(16);
    case 0x1f:
      return new LineStr(r.u32());
    case 0x20:
      return r.u64(); // ref_sig8
    case 0x21:
      return implicit;
    case 0x22:
      return r.uleb(); // loclistx
    case 0x23:
      return r.uleb(); // rnglistx
    case 0x24:
      return r.u64();
    case 0x25:
      return new StrIndex(r.u8());
    case 0x26:
      return new StrIndex(r.u16());
    case 0x27:
      return new StrIndex(r.u8() | (r.u8() << 8) | (r.u8() << 16));
    case 0x28:
      return new StrIndex(r.u32());
    case 0x29:
      return r.u8(); // addrx1
    case 0x2a:
      return r.u16();
    case 0x2b:
      return r.u8() | (r.u8() << 8) | (r.u8() << 16);
    case 0x2c:
      return r.u32();
    default:
      throw new Error(`.debug_info: unknown attribute form 0x${form.toString(16)} (DWARF ${version})`);
  }
}

function cstringAt(bytes: Uint8Array | null, offset: number): string | null {
  if (!bytes || offset >= bytes.length) return null;
  const end = bytes.indexOf(0, offset);
  return new TextDecoder().decode(bytes.subarray(offset, end < 0 ? bytes.length : end));
}
