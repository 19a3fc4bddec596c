// Byte layouts of the records the passes write into reserved memory, and the reader of the
// calling-context tree they share: one definition per record, used by the pass that writes it and
// by the decoder that reads the copied-out memory after a run (src/profile, src/taint,
// src/experiment, src/blame). No binaryen import here: decoding a run must not load Binaryen.
//
// Each record has its own name: the loop profiler's per-loop record (entries, headers,
// instructions) and the taint pass's per-loop sink record (headers, entries) are two layouts.

/** Header of every calling-context tree node (instrument/context-tree.ts); the pass's own data follows. */
export const NODE_HEADER = { func: 0, target: 4, parent: 8, site: 12, next: 16, bytes: 24 } as const;
/** An alias node (recursion folded onto an ancestor): just the header's first fields. */
export const ALIAS_BYTES = 24;
/** The call-site value meaning "entered from outside" (host, start function). */
export const EXTERNAL_SITE = -1;

/** Loop profiler node: the header, then call count and own instructions (i64), then one LOOP_PROFILE_RECORD per loop, then the child-slot lists. */
export const LOOP_PROFILE_NODE = {
  func: 0,
  target: 4,
  parent: 8,
  site: 12,
  next: 16,
  calls: 24,
  instructions: 32,
  loops: 40,
} as const;
/** Loop profiler: one loop's counters in a context node (i64 each). */
export const LOOP_PROFILE_RECORD = { entries: 0, headers: 8, instructions: 16, size: 24 } as const;

/** Taint pass: one loop's sink counters in a context node, after the child-slot lists (i64 each). */
export const TAINT_LOOP_RECORD = { headers: 0, entries: 8, bytes: 16 } as const;

/** Measurement pass: byte offsets inside a region node, after the tree's header. */
export const REGION_RECORD = {
  children: NODE_HEADER.bytes,
  visits: 32,
  inclusive: 40,
  exclusive: 48,
  first: 56,
  mean: 64,
  m2: 72,
  min: 80,
  max: 88,
  traced: 96,
  ring: 104,
} as const;
/** Measurement pass: one trace entry, start (ms since the run began) and duration (ms), both f64. */
export const TRACE_ENTRY_BYTES = 16;

/**
 * Sampling pass: one sample record — region, context node, allocation-log length, stack pointer,
 * the countdown as the region's check left it (negative: how far before the region's end the
 * sample fell), then the region's recorded store addresses; `size` is the longest record
 * (MAX_ADDRESSES of them).
 */
export const SAMPLE_RECORD = {
  region: 0,
  node: 4,
  allocs: 8,
  stack: 12,
  countdown: 16,
  addresses: 20,
  size: 52,
} as const;
/**
 * Sampling pass: a sample whose context node, allocation-log length and stack pointer are the
 * previous record's is written short (passes/sample-record.ts): when its region is the previous
 * record's too, one word — its countdown — then its addresses; else its countdown with bit 30
 * (`regionFlag`) cleared, its region, then its addresses. Only a countdown in [-2^30, -1] (bits 31
 * and 30 set) is written short. A full record starts with its region (never negative), so the first
 * word's top two bits tell the three apart: 0· full, 11 short of the previous region, 10 short with
 * its region. Each page of records is a first-touch page fault in a run (2–70 µs on the bench
 * machine): trmm -O0's 61,781 samples take 1.73 MB in full records, 0.81 MB written short
 * (docs/blame.md, "Twelfth session").
 */
export const SHORT_RECORD = { regionFlag: 0x40000000, sameRegionBytes: 4, newRegionBytes: 8 } as const;
/**
 * Sampling pass: what a full sample buffer calls. The host copies the records out and moves the
 * cursor back to the buffer's start (src/blame/sample-drain.ts), so no sample is dropped; the
 * default import does nothing, and a sample that still does not fit is counted as dropped.
 */
export const DRAIN_IMPORT = { module: 'taintlens', name: 'drain_samples' } as const;
/** Sampling pass: store addresses a sample record holds at most. */
export const MAX_ADDRESSES = 8;

/**
 * Bytes of a full sample record whose region records `addresses` store addresses. A record is no
 * longer than its region's addresses: the buffer's pages are fresh in every run, and each first
 * touch of one is a page fault (48-byte records cost gemm -O2 about 0.1× of its time).
 */
export function sampleRecordBytes(addresses: number): number {
  return SAMPLE_RECORD.addresses + 4 * Math.min(addresses, MAX_ADDRESSES);
}
/** Sampling pass: one allocation-log record — kind, address, bytes, context node, old address (realloc), grow site. */
export const ALLOC_RECORD = { kind: 0, address: 4, bytes: 8, node: 12, old: 16, site: 20, size: 24 } as const;
/** Sampling pass: allocation-log kinds by their number in ALLOC_RECORD.kind (0 is never written). */
export const ALLOC_KINDS = [null, 'alloc', 'free', 'realloc', 'grow'] as const;
export type AllocationKind = NonNullable<(typeof ALLOC_KINDS)[number]>;

export function allocKindNumber(kind: AllocationKind): number {
  return ALLOC_KINDS.indexOf(kind);
}

export interface ContextTreeLayout {
  /** Address of the root node; function nodes follow in allocation order. */
  base: number;
  bytes: number;
  rootBytes: number;
  /** Exported globals: the allocation cursor (end of the used part) and the count of entries that found the tree full. */
  exports: { next: string; overflow: string };
}

/** A node read back from a copy of the tree's memory. */
export interface RawContextNode {
  address: number;
  /** 0-based function number. */
  functionIndex: number;
  /** Parent node address (the root's address for entries from outside). */
  parent: number;
  /** Offset of the caller's child-slot list, or EXTERNAL_SITE. */
  site: number;
}

/**
 * The real (non-alias) nodes of a tree, in allocation order (parents before children), from a
 * copy of its memory starting at `layout.base` and ending at the allocation cursor `next`.
 */
export function readContextNodes(
  raw: Uint8Array,
  layout: ContextTreeLayout,
  next: number,
  nodeBytes: (functionIndex: number) => number,
): RawContextNode[] {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const u32 = (address: number) => view.getUint32(address - layout.base, true);
  const nodes: RawContextNode[] = [];
  for (let address = layout.base + layout.rootBytes; address < next;) {
    const functionIndex = u32(address + NODE_HEADER.func) - 1;
    if (u32(address + NODE_HEADER.target) !== address) {
      address += ALIAS_BYTES;
      continue;
    }
    const size = nodeBytes(functionIndex);
    if (!(size > 0)) throw new Error(`internal: corrupt context tree at ${address}`);
    nodes.push({
      address,
      functionIndex,
      parent: u32(address + NODE_HEADER.parent),
      site: view.getInt32(address - layout.base + NODE_HEADER.site, true),
    });
    address += size;
  }
  return nodes;
}

export function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
