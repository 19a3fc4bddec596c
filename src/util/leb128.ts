// LEB128 encoding for the few places that write WebAssembly bytes by hand (binary patches, fuzz
// inputs, the v128 global reader, the scale benchmark's synthetic module). Reading: ByteReader
// (instrument/wasm-reader.ts).

/** Unsigned LEB128 of a non-negative 32-bit value. */
export function uleb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(value: number): number[] {
  const bytes: number[] = [];
  value |= 0;
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) {
      bytes.push(byte);
      return bytes;
    }
    bytes.push(byte | 0x80);
  }
}
