// Edits of an emitted binary that Binaryen's API cannot express: the limits of memory 0, data
// segment offsets moved up by the program base, and an export of the memory so results can be read.
import { initialRealPages, type MemoryLayout } from './memory-plan.js';
import { ByteReader, readSections, type Section } from './wasm-reader.js';
import { sleb, uleb } from '../src/util/leb128.js';

const SECTION = { memory: 5, export: 7, data: 11 } as const;
const EXTERNAL_MEMORY = 2;

export const MEMORY_EXPORT = 'taintlens$memory';

/** The emitted binary's final touches: memory limits, data moved up by programBase, memory exported. */
export function finishBinary(bytes: Uint8Array, layout: MemoryLayout): Uint8Array {
  let out = patchMemoryLimits(bytes, initialRealPages(layout), layout.totalPages);
  if (layout.programBase > 0) out = relocateDataSegments(out, layout.programBase);
  return ensureMemoryExport(out);
}

function withContent(bytes: Uint8Array, section: Section, content: Uint8Array): Uint8Array {
  return concat([
    bytes.subarray(0, section.offset),
    Uint8Array.of(section.id),
    leb(content.length),
    content,
    bytes.subarray(section.end),
  ]);
}

/** The limits memory 0 is defined with (null when the module defines no memory: none, or imported). */
export function readMemoryLimits(
  bytes: Uint8Array,
): { flags: number; initialPages: number; maxPages: number | null } | null {
  for (const section of readSections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = new ByteReader(bytes, section.contentStart);
    if (inner.uleb() < 1) return null;
    const flags = bytes[inner.pos++]!;
    const initialPages = inner.uleb();
    return { flags, initialPages, maxPages: flags & 1 ? inner.uleb() : null };
  }
  return null;
}

/** Sets the limits of memory 0 (Binaryen cannot resize an existing memory). */
export function patchMemoryLimits(bytes: Uint8Array, initialPages: number, maxPages = initialPages): Uint8Array {
  for (const section of readSections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = new ByteReader(bytes, section.contentStart);
    const count = inner.uleb();
    if (count < 1) break;
    const flags = bytes[inner.pos++]!;
    inner.uleb();
    if (flags & 1) inner.uleb();
    const rest = bytes.subarray(inner.pos, section.end);
    return withContent(bytes, section, concat([leb(count), Uint8Array.of(1), leb(initialPages), leb(maxPages), rest]));
  }
  throw new Error('internal: emitted module has no memory section');
}

/** Initial pages of the memory a module defines (memory 0), or null when it defines none. */
export function definedMemoryPages(bytes: Uint8Array): number | null {
  for (const section of readSections(bytes)) {
    if (section.id !== SECTION.memory) continue;
    const inner = new ByteReader(bytes, section.contentStart);
    if (inner.uleb() < 1) return null;
    inner.pos++;
    return inner.uleb();
  }
  return null;
}

/** Adds `base` to the offset of every active data segment (Binaryen has no setter for it). */
function relocateDataSegments(bytes: Uint8Array, base: number): Uint8Array {
  for (const section of readSections(bytes)) {
    if (section.id !== SECTION.data) continue;
    const inner = new ByteReader(bytes, section.contentStart);
    const count = inner.uleb();
    const parts: Uint8Array[] = [leb(count)];
    for (let i = 0; i < count; i++) {
      const segmentStart = inner.pos;
      const flags = inner.uleb();
      if (flags === 1) {
        const length = inner.uleb();
        inner.pos += length;
        parts.push(bytes.subarray(segmentStart, inner.pos));
        continue;
      }
      if (flags === 2 && inner.uleb() !== 0) throw new Error('data segments for a second memory are not supported');
      const headerEnd = inner.pos;
      if (bytes[inner.pos++] !== 0x41)
        throw new Error('data segments placed by a global (relocatable modules) are not supported');
      const offset = inner.sleb() >>> 0;
      if (bytes[inner.pos++] !== 0x0b) throw new Error('data segment offsets other than a constant are not supported');
      const dataStart = inner.pos;
      const length = inner.uleb();
      inner.pos += length;
      parts.push(
        bytes.subarray(segmentStart, headerEnd),
        Uint8Array.of(0x41),
        Uint8Array.from(sleb(offset + base)),
        Uint8Array.of(0x0b),
        bytes.subarray(dataStart, inner.pos),
      );
    }
    return withContent(bytes, section, concat(parts));
  }
  return bytes;
}

/** Exports memory 0 under MEMORY_EXPORT when the module does not export a memory. */
export function ensureMemoryExport(bytes: Uint8Array): Uint8Array {
  const entry = concat([
    leb(MEMORY_EXPORT.length),
    new TextEncoder().encode(MEMORY_EXPORT),
    Uint8Array.of(EXTERNAL_MEMORY, 0),
  ]);
  for (const section of readSections(bytes)) {
    if (section.id === SECTION.export) {
      const inner = new ByteReader(bytes, section.contentStart);
      const count = inner.uleb();
      const entriesStart = inner.pos;
      for (let i = 0; i < count; i++) {
        const nameLength = inner.uleb();
        inner.pos += nameLength;
        const kind = bytes[inner.pos++]!;
        inner.uleb();
        if (kind === EXTERNAL_MEMORY) return bytes;
      }
      return withContent(bytes, section, concat([leb(count + 1), bytes.subarray(entriesStart, section.end), entry]));
    }
    // Known sections come in order, and every one with a larger id (start, elem, datacount, code,
    // data) follows the export section: a new one goes right before the first of them.
    if (section.id > SECTION.export) {
      const created = concat([Uint8Array.of(SECTION.export), leb(entry.length + 1), Uint8Array.of(1), entry]);
      return concat([bytes.subarray(0, section.offset), created, bytes.subarray(section.offset)]);
    }
  }
  return concat([bytes, Uint8Array.of(SECTION.export), leb(entry.length + 1), Uint8Array.of(1), entry]);
}

const leb = (value: number) => Uint8Array.from(uleb(value));

/** The parts in one new array (it owns its buffer: transferable to another thread). */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
