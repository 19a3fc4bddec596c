// LEB128 encoding for the few places that write WebAssembly bytes by hand (fuzz inputs, the v128
// global reader, the scale benchmark's synthetic module).

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
