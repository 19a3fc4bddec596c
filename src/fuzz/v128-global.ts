// JavaScript cannot read a v128 WebAssembly.Global (`.value` throws), but another module can
// import it. A tiny reader module, built here byte by byte, imports the global and returns its
// four 32-bit lanes, so the fuzzer compares the real bits (NaN payloads included).
import { uleb } from '../util/leb128.js';

const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const I32 = 0x7f;
const V128 = 0x7b;
const I32X4_EXTRACT_LANE = 0x1b;

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(text: string): number[] {
  const bytes = [...Buffer.from(text, 'utf8')];
  return [...uleb(bytes.length), ...bytes];
}

const readers = new Map<boolean, WebAssembly.Module>();

/** `(import "m" "g" (global [mut] v128)) (func (export "lanes") (result i32 i32 i32 i32) ...)`. */
function readerModule(mutable: boolean): WebAssembly.Module {
  let module = readers.get(mutable);
  if (module) return module;
  const body: number[] = [0x00]; // no locals
  for (let lane = 0; lane < 4; lane++) body.push(0x23, 0x00, 0xfd, ...uleb(I32X4_EXTRACT_LANE), lane);
  body.push(0x0b);
  const bytes = [
    ...MAGIC,
    ...section(1, [0x01, 0x60, 0x00, 0x04, I32, I32, I32, I32]),
    ...section(2, [0x01, ...name('m'), ...name('g'), 0x03, V128, mutable ? 0x01 : 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...name('lanes'), 0x00, 0x00]),
    ...section(10, [0x01, ...uleb(body.length), ...body]),
  ];
  module = new WebAssembly.Module(new Uint8Array(bytes));
  readers.set(mutable, module);
  return module;
}

/** The type a global was declared with is not visible from JS, except through what fails to link. */
function linkReader(global: WebAssembly.Global): (() => number[]) | null {
  for (const mutable of [true, false]) {
    try {
      return new WebAssembly.Instance(readerModule(mutable), { m: { g: global } }).exports.lanes as () => number[];
    } catch {
      // wrong mutability or not a v128 global: try the other one
    }
  }
  return null;
}

/** A v128 global's value as `v128 0x........ 0x........ 0x........ 0x........` (lanes 0..3), or null when it is not v128. */
export function showV128Global(global: WebAssembly.Global): string | null {
  const lanes = linkReader(global);
  if (!lanes) return null;
  return `v128 ${lanes()
    .map((lane) => '0x' + (lane >>> 0).toString(16).padStart(8, '0'))
    .join(' ')}`;
}
