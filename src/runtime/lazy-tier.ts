// Which compiler V8 uses for a function's first call. Liftoff, V8's baseline and default first
// tier, keeps the state of every local at each block, loop and if while it compiles a function and
// frees it only when the function is done: about 12 bytes per local per control structure. Taint-
// instrumented functions have thousands of both (flattening gives every value a local and a label
// local): Liftoff took 5.6 GB of malloc memory compiling nextpnr's taint module lazily and 16–20 GB
// on yosys's (docs/real-programs.md, "the memory of instrumented runs"). So a function with that
// many locals is compiled with TurboFan, still lazily, through V8's per-function compilation hints
// (a `compilationHints` custom section, read when V8's experimental flag for it is on while the
// module compiles); every other function keeps V8's default tiers, Liftoff first.
import { setFlagsFromString } from 'node:v8';
import { ByteReader, readSections } from '../../instrument/wasm-reader.js';
import { uleb } from '../util/leb128.js';

/**
 * Locals above which a function is compiled with TurboFan. The taint pass's flattened functions
 * keep over 2,000 (smaller ones are coalesced below 500); programs' own functions stay far below
 * (nextpnr's most: 69, yosys's: 228).
 */
export const LIFTOFF_LOCALS_LIMIT = 1_500;

const FUNCTION_SECTION = 3;
const CODE_SECTION = 10;
export const HINTS_SECTION = 'compilationHints';
/** A hint byte: strategy default (bits 0-1), baseline tier and top tier optimized (2 in bits 2-3 and 4-5). */
export const TURBOFAN_HINT = (2 << 2) | (2 << 4);
/** V8 decodes the hints section only with this flag on while the module compiles. */
export const HINTS_FLAG = 'experimental-wasm-compilation-hints';

/** Locals each defined function declares, in order (empty without a code section or when it cannot be read). */
export function localCounts(bytes: Uint8Array): number[] {
  try {
    const code = readSections(bytes).find((section) => section.id === CODE_SECTION);
    if (!code) return [];
    const reader = new ByteReader(bytes, code.start);
    const counts: number[] = [];
    for (let count = reader.uleb(); count > 0; count--) {
      const size = reader.uleb();
      const end = reader.pos + size;
      let locals = 0;
      for (let groups = reader.uleb(); groups > 0; groups--) {
        locals += reader.uleb();
        reader.skip(1); // the group's value type (one byte for every type a local can have here)
      }
      counts.push(locals);
      reader.pos = end;
    }
    return counts;
  } catch {
    // A malformed module: V8's own compile reports it.
    return [];
  }
}

/**
 * The module with a compilation-hints section that sends every function over the limit to
 * TurboFan, placed right after the function section as V8 requires; the module itself when no
 * function is over the limit or it has hints of its own.
 */
export function withTierHints(bytes: Uint8Array, localsLimit = LIFTOFF_LOCALS_LIMIT): Uint8Array {
  const counts = localCounts(bytes);
  if (!counts.some((locals) => locals > localsLimit)) return bytes;
  const sections = readSections(bytes);
  const functions = sections.find((section) => section.id === FUNCTION_SECTION);
  if (!functions || sections.some((section) => section.name === HINTS_SECTION)) return bytes;
  const name = new TextEncoder().encode(HINTS_SECTION);
  const hints = counts.map((locals) => (locals > localsLimit ? TURBOFAN_HINT : 0));
  const content = [...uleb(name.length), ...name, ...uleb(counts.length), ...hints];
  const section = Uint8Array.from([0, ...uleb(content.length), ...content]);
  const out = new Uint8Array(bytes.length + section.length);
  out.set(bytes.subarray(0, functions.end));
  out.set(section, functions.end);
  out.set(bytes.subarray(functions.end), functions.end + section.length);
  return out;
}

/** Compiles the module lazily, its functions over the locals limit with TurboFan (see the file comment). */
export function compileLazily(bytes: Uint8Array, localsLimit = LIFTOFF_LOCALS_LIMIT): WebAssembly.Module {
  const hinted = withTierHints(bytes, localsLimit);
  // V8 decodes the section only with the flag on; the compiled module keeps the hints for its lazy compiles.
  return compileWithFlags(hinted, hinted === bytes ? [] : [HINTS_FLAG], []);
}

/**
 * Compiles with V8 flags switched for this compile only: `on` turned on and `off` turned off, then
 * each put back (V8 reads them when a module is compiled; every flag given here is off, resp. on,
 * by default).
 */
export function compileWithFlags(bytes: Uint8Array, on: string[], off: string[]): WebAssembly.Module {
  for (const flag of on) setFlagsFromString(`--${flag}`);
  for (const flag of off) setFlagsFromString(`--no-${flag}`);
  try {
    return new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  } finally {
    for (const flag of on) setFlagsFromString(`--no-${flag}`);
    for (const flag of off) setFlagsFromString(`--${flag}`);
  }
}
