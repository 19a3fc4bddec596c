// Edits of an emitted binary that Binaryen's API cannot express: the limits of memory 0, data
// segment offsets moved up by the program base, and an export of the memory so results can be read.
import { initialRealPages, type MemoryLayout } from './memory-layout.js';

const SECTION = { memory: 5, export: 7, data: 11 } as const;
const EXTERNAL_MEMORY = 2;

export const MEMORY_EXPORT = 'taintlens$memory';

/** The emitted binary's final touches: memory limits, data moved up by programBase, memory exported. */
export function finishBinary(bytes: Uint8Array, layout: MemoryLayout): Uint8Array {
  let out = patchMemoryLimits(bytes, initialRealPages(layout), layout.totalPages);
  if (layout.programBase > 0) out = relocateDataSegments(out, layout.programBase);
  return ensureMemoryExport(out);
}

interface Section {
  id: number;
  /** Offset of the section id byte. */
  start: number;
  contentStart: number;
  end: number;
}

function* sections(bytes: Uint8Array): Generator<Section> {
  const reader = { pos: 8 };
  while (reader.pos < bytes.length) {
    const start = reader.pos;
    const id = bytes[reader.pos++]!;
    const size = readLeb(bytes, reader);
    yield { id, start, contentStart: reader.pos, end: reader.pos + size };
    reader.pos += size;
  }
}

function withContent(bytes: Uint8Array, section: Section, content: Uint8Array): Uint8Array {
  return concat([bytes.subarray(0, section.start), Uint8Array.of(section.id), encodeLeb(content.length), content, bytes.subarray(section.end)]);
}

/** The limits memory 0 is defined with (null when the module defines no memory: none, or imported). */
export function readMemoryLimits(bytes: Uint8Array): { flags: number; initialPages: number; maxPages: number | null } | null {
  for (const section of sections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = { pos: section.contentStart };
    if (readLeb(bytes, inner) < 1) return null;
    const flags = bytes[inner.pos++]!;
    const initialPages = readLeb(bytes, inner);
    return { flags, initialPages, maxPages: flags & 1 ? readLeb(bytes, inner) : null };
  }
  return null;
}

/** Sets the limits of memory 0 (Binaryen cannot resize an existing memory). */
export function patchMemoryLimits(bytes: Uint8Array, initialPages: number, maxPages = initialPages): Uint8Array {
  for (const section of sections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = { pos: section.contentStart };
    const count = readLeb(bytes, inner);
    if (count < 1) break;
    const flags = bytes[inner.pos++]!;
    readLeb(bytes, inner);
    if (flags & 1) readLeb(bytes, inner);
    const rest = bytes.subarray(inner.pos, section.end);
    return withContent(bytes, section, concat([encodeLeb(count), Uint8Array.of(1), encodeLeb(initialPages), encodeLeb(maxPages), rest]));
  }
  throw new Error('internal: emitted module has no memory section');
}

/** Initial pages of the memory a module defines (memory 0), or null when it defines none. */
export function definedMemoryPages(bytes: Uint8Array): number | null {
  for (const section of sections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = { pos: section.contentStart };
    if (readLeb(bytes, inner) < 1) return null;
    inner.pos++;
    return readLeb(bytes, inner);
  }
  return null;
}

/** Adds `base` to the offset of every active data segment (Binaryen has no setter for it). */
function relocateDataSegments(bytes: Uint8Array, base: number): Uint8Array {
  for (const section of sections(bytes)) {
    if (section.id !== SECTION.data) continue;
    const inner = { pos: section.contentStart };
    const count = readLeb(bytes, inner);
    const parts: Uint8Array[] = [encodeLeb(count)];
    for (let i = 0; i < count; i++) {
      const segmentStart = inner.pos;
      const flags = readLeb(bytes, inner);
      if (flags === 1) {
        const length = readLeb(bytes, inner);
        inner.pos += length;
        parts.push(bytes.subarray(segmentStart, inner.pos));
        continue;
      }
      if (flags === 2 && readLeb(bytes, inner) !== 0) throw new Error('data segments for a second memory are not supported');
      const headerEnd = inner.pos;
      if (bytes[inner.pos++] !== 0x41) throw new Error('data segments placed by a global (relocatable modules) are not supported');
      const offset = readSleb32(bytes, inner) >>> 0;
      if (bytes[inner.pos++] !== 0x0b) throw new Error('data segment offsets other than a constant are not supported');
      const dataStart = inner.pos;
      const length = readLeb(bytes, inner);
      inner.pos += length;
      parts.push(bytes.subarray(segmentStart, headerEnd), Uint8Array.of(0x41), encodeSleb32((offset + base) | 0), Uint8Array.of(0x0b), bytes.subarray(dataStart, inner.pos));
    }
    return withContent(bytes, section, concat(parts));
  }
  return bytes;
}

/** Exports memory 0 under MEMORY_EXPORT when the module does not export a memory. */
export function ensureMemoryExport(bytes: Uint8Array): Uint8Array {
  const entry = concat([encodeLeb(MEMORY_EXPORT.length), new TextEncoder().encode(MEMORY_EXPORT), Uint8Array.of(EXTERNAL_MEMORY, 0)]);
  for (const section of sections(bytes)) {
    if (section.id === SECTION.export) {
      const inner = { pos: section.contentStart };
      const count = readLeb(bytes, inner);
      const entriesStart = inner.pos;
      for (let i = 0; i < count; i++) {
        const nameLength = readLeb(bytes, inner);
        inner.pos += nameLength;
        const kind = bytes[inner.pos++]!;
        readLeb(bytes, inner);
        if (kind === EXTERNAL_MEMORY) return bytes;
      }
      return withContent(bytes, section, concat([encodeLeb(count + 1), bytes.subarray(entriesStart, section.end), entry]));
    }
    // Known sections come in order, and every one with a larger id (start, elem, datacount, code,
    // data) follows the export section: a new one goes right before the first of them.
    if (section.id > SECTION.export) {
      const created = concat([Uint8Array.of(SECTION.export), encodeLeb(entry.length + 1), Uint8Array.of(1), entry]);
      return concat([bytes.subarray(0, section.start), created, bytes.subarray(section.start)]);
    }
  }
  return concat([bytes, Uint8Array.of(SECTION.export), encodeLeb(entry.length + 1), Uint8Array.of(1), entry]);
}

function readSleb32(bytes: Uint8Array, cursor: { pos: number }): number {
  let result = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = bytes[cursor.pos++]!;
    result |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return shift < 32 && byte & 0x40 ? result | (-1 << shift) : result;
}

function encodeSleb32(value: number): Uint8Array {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) {
      out.push(byte);
      return Uint8Array.from(out);
    }
    out.push(byte | 0x80);
  }
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
