// Where the taint pass keeps its labels, as plain data the runtime can use without binaryen (the
// host plugin labels registered variables through it). The code that reads and writes labels is in
// shadow-memory.ts.
//
// Label addresses are skewed against program addresses: with the label of address a at the same
// offset modulo 64 KiB as a itself, every program access and its label access fall into the same
// cache set and alias in the store buffer, which cost 2-3x in memory-bound kernels.

export type ShadowGranularity = 'word' | 'byte';
export const SHADOW_GRANULARITIES: readonly ShadowGranularity[] = ['word', 'byte'];

/** Where the labels live (part of the taint layout the runtime reads). */
export interface ShadowPlacement {
  granularity: ShadowGranularity;
  /** The reserved region. */
  base: number;
  bytes: number;
  /** Address of the label of program address 0. */
  labels: number;
}

/** (program address − label address) modulo 64 KiB: distinct L1 sets, no 4 KiB store-buffer aliasing. */
const SKEW = 0x8840;
export const SKEW_PERIOD = 0x10000;

export function placeShadow(
  granularity: ShadowGranularity,
  region: { base: number; bytes: number },
  programBase: number,
): ShadowPlacement {
  const scale = granularity === 'word' ? 1 : 4;
  // labels ≡ programBase·scale − SKEW (mod 64 KiB), inside the region's spare 64 KiB.
  const wanted = (((programBase * scale - SKEW) % SKEW_PERIOD) + SKEW_PERIOD) % SKEW_PERIOD;
  const skew = (((wanted - region.base) % SKEW_PERIOD) + SKEW_PERIOD) % SKEW_PERIOD;
  return { granularity, base: region.base, bytes: region.bytes, labels: region.base + skew };
}

/** Label words covering program bytes [addr, addr+size): indices into a Uint32Array of the memory. */
export function labelIndices(placement: ShadowPlacement, addr: number, size: number): { start: number; end: number } {
  const first = placement.labels >>> 2;
  if (placement.granularity === 'byte') return { start: first + addr, end: first + addr + size };
  return { start: first + Math.floor(addr / 4), end: first + Math.floor((addr + size - 1) / 4) + 1 };
}
