// Byte-level reading of a Wasm binary: LEB128 numbers, the section list and custom sections by name.
// The debug-info readers need file offsets, which Binaryen's IR does not expose; the binary patches
// and the malformed-input generator edit sections in place.

export class ByteReader {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
  ) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  u8(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('unexpected end of data');
    return this.bytes[this.pos++]!;
  }

  u16(): number {
    return this.u8() | (this.u8() << 8);
  }

  u32(): number {
    return (this.u8() | (this.u8() << 8) | (this.u8() << 16)) + this.u8() * 2 ** 24;
  }

  u64(): number {
    const low = this.u32();
    return low + this.u32() * 2 ** 32;
  }

  uleb(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
    }
  }

  sleb(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) return byte & 0x40 ? result - scale : result;
    }
  }

  skip(count: number): void {
    if (this.pos + count > this.bytes.length) throw new RangeError('unexpected end of data');
    this.pos += count;
  }

  /** NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.bytes.indexOf(0, this.pos);
    if (end < 0) throw new RangeError('unterminated string');
    const text = new TextDecoder().decode(this.bytes.subarray(this.pos, end));
    this.pos = end + 1;
    return text;
  }

  name(): string {
    const length = this.uleb();
    const text = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + length));
    this.skip(length);
    return text;
  }
}

export interface Section {
  id: number;
  /** Custom sections only. */
  name: string | null;
  /** File offset of the section's id byte. */
  offset: number;
  /** File offset of the content (right after the size). */
  contentStart: number;
  /** File offset of the payload (the content; for custom sections, after the name). */
  start: number;
  end: number;
}

export function readSections(bytes: Uint8Array): Section[] {
  const reader = new ByteReader(bytes, 8);
  const sections: Section[] = [];
  while (!reader.done) {
    const offset = reader.pos;
    const id = reader.u8();
    const size = reader.uleb();
    const contentStart = reader.pos;
    const end = contentStart + size;
    let name: string | null = null;
    if (id === 0) name = reader.name();
    sections.push({ id, name, offset, contentStart, start: reader.pos, end });
    reader.pos = end;
  }
  return sections;
}

export function customSection(bytes: Uint8Array, sections: Section[], name: string): Uint8Array | null {
  const section = sections.find((s) => s.id === 0 && s.name === name);
  return section ? bytes.subarray(section.start, section.end) : null;
}
