// Runs a module under the sampling pass and decodes what it left in memory: the samples (region,
// calling-context node, allocation-log length, stack pointer, store addresses), the allocation
// log and the calling-context tree, as call paths of functions and call sites.
import { readStaticVariables, type StaticVariable } from '../../instrument/debug/dwarf-variables.js';
import type { InstrumentOptions, InstrumentedSites } from '../../instrument/pipeline.js';
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import { readExports } from '../../instrument/exports.js';
import {
  ALLOC_KINDS,
  ALLOC_RECORD,
  EXTERNAL_SITE,
  MAX_ADDRESSES,
  NODE_HEADER,
  SAMPLE_RECORD,
  SHORT_RECORD,
  readContextNodes,
  type RawContextNode,
} from '../../instrument/layouts.js';
import type { SampleLayout, SampleOptions } from '../../instrument/passes/sample.js';
import { runModule } from '../runtime/run.js';
import { sampleDrainPlugin } from './sample-drain.js';
import { foldedLeafLookup } from './folded-samples.js';
import type { RunSettings } from '../runtime/run-settings.js';
import type { RepetitionResult } from '../runtime/protocol.js';

export interface Frame {
  /** Site-table function index. */
  function: number;
  /** Call index in the caller that made this frame (null for the outermost frame). */
  call: number | null;
  /** Context-tree node address (identifies the call path). */
  node: number;
}

export interface Sample {
  /** Global region id (SampleLayout.regions). */
  region: number;
  /** Outermost frame first; the sampled function last. */
  path: Frame[];
  /** Allocation-log entries made before the sample. */
  allocations: number;
  stackPointer: number;
  /** The addresses of the region's recorded stores (SampleLayout.regions), in their order. */
  addresses: number[];
  /** The folded leaf (site-table index) the sample was due in, called from the path's last function (folded-samples.ts); null for none. */
  leaf: number | null;
}

export interface AllocationEvent {
  kind: 'alloc' | 'free' | 'realloc' | 'grow';
  address: number;
  bytes: number;
  old: number;
  /** Call path of the allocator invocation (or of the function that grew memory). */
  path: Frame[];
  growSite: number | null;
}

export interface SampledRun {
  sites: InstrumentedSites;
  layout: SampleLayout;
  /** Every sample, decoded on first use (hundreds of bytes each: millions of them are gigabytes). */
  readonly samples: Sample[];
  /** Visits every sample in order without keeping them (`sample` and `blame` need one sample at a time); a visit returning false stops it. */
  forEachSample(visit: SampleVisit): void;
  /** How many samples were kept (counted on first use). */
  readonly sampleCount: number;
  /** Samples taken after the buffer was full (counted, not kept). */
  dropped: number;
  allocations: AllocationEvent[];
  allocationsDropped: number;
  contextsLost: number;
  result: RepetitionResult['result'];
  ms: number;
  stdout: string;
  stderr: string;
  invoke: string | null;
  /** The program's static variables (DWARF .debug_info of a -g build; else empty): blame names static data by them. */
  staticVariables: StaticVariable[];
  /** SPMD runs (--ranks): every rank's run, rank 0 first (the fields above are rank 0's). */
  ranks?: SampledRun[];
}

export type SampleVisit = (sample: Sample) => boolean | void;

export interface SampleRunOptions {
  period?: number;
  /** Sample records the buffer holds (default: the pass's); a full buffer is emptied during the run, so this never limits the samples. */
  maxSamples?: number;
  instrument?: InstrumentOptions;
}

/** Debug info only adds names: unreadable .debug_info leaves static data unnamed, never fails the run. */
function staticVariablesOf(bytes: Uint8Array): StaticVariable[] {
  try {
    return readStaticVariables(bytes);
  } catch {
    return [];
  }
}

/**
 * Runs the module under the sampler. Whenever the buffer fills, the host empties it
 * (sample-drain.ts): every sample is kept, in one run of one instrumentation.
 */
export async function runSampled(
  file: string,
  bytes: Uint8Array,
  run: RunSettings,
  options: SampleRunOptions = {},
): Promise<SampledRun> {
  const exports = readExports(bytes, file);
  const sample: SampleOptions = {
    ...options.instrument?.sample,
    ...(options.period !== undefined ? { period: options.period } : {}),
    ...(options.maxSamples !== undefined ? { maxSamples: options.maxSamples } : {}),
  };
  const instrumentOptions = { ...options.instrument, sample } as InstrumentOptions;
  const { bytes: instrumented, sites } = await instrumentIsolated(bytes, file, ['sample'], instrumentOptions);
  const layout = sites.passes.sample as SampleLayout;
  const outcome = await runModule({
    file,
    bytes: instrumented,
    invoke: run.invoke,
    args: run.args,
    argv: run.argv,
    repeat: 1,
    timeoutMs: run.timeoutMs,
    exports,
    regions: [
      { name: 'tree', base: layout.tree.base, bytes: layout.tree.bytes, endGlobal: layout.tree.exports.next },
      { name: 'samples', base: layout.samples.base, bytes: layout.samples.bytes, endGlobal: layout.exports.samples },
      {
        name: 'allocations',
        base: layout.allocations.base,
        bytes: layout.allocations.bytes,
        endGlobal: layout.exports.allocations,
      },
    ],
    globals: [
      layout.tree.exports.next,
      layout.tree.exports.overflow,
      layout.exports.samples,
      layout.exports.dropped,
      layout.exports.allocations,
      layout.exports.allocationsDropped,
    ],
    programBase: sites.layout?.programBase ?? 0,
    plugins: [sampleDrainPlugin(layout)],
    wasi: run.wasi,
    ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
  });
  const staticVariables = staticVariablesOf(bytes);
  const invoke = run.invoke ?? (outcome.kind === 'wasi-command' ? null : 'run');
  const decode = (rep: RepetitionResult): SampledRun => {
    const pathOf = decodePaths(rep.regions.tree!, layout, Number(rep.globals[layout.tree.exports.next]));
    const records = sampleRecords(rep);
    let samples: Sample[] | undefined;
    let count: number | undefined;
    const visitAll = (visit: SampleVisit) => {
      if (!samples) return forEachSample(records, layout, pathOf, visit);
      for (const sample of samples) if (visit(sample) === false) return;
    };
    return {
      sites,
      layout,
      get samples() {
        return (samples ??= decodeSamples(records, layout, pathOf));
      },
      forEachSample: visitAll,
      get sampleCount() {
        if (count === undefined) {
          let n = 0;
          visitAll(() => void n++);
          count = n;
        }
        return count;
      },
      dropped: Number(rep.globals[layout.exports.dropped]),
      allocations: decodeAllocations(rep.regions.allocations!, pathOf),
      allocationsDropped: Number(rep.globals[layout.exports.allocationsDropped]),
      contextsLost: Number(rep.globals[layout.tree.exports.overflow]),
      result: rep.result,
      ms: rep.ms,
      stdout: rep.stdout,
      stderr: rep.stderr,
      invoke,
      staticVariables,
    };
  };
  const first = decode(outcome.repetitions[0]!);
  // Not spread: that would decode the samples.
  if (outcome.ranks) first.ranks = outcome.ranks.map((r) => decode(r.repetitions[0]!));
  return first;
}

/** The run's sample records in order: those emptied during the run (sample-drain.ts), then the buffer's rest. */
function sampleRecords(rep: RepetitionResult): Uint8Array[] {
  return [...((rep.plugins[0] ?? []) as Uint8Array[]), rep.regions.samples!];
}

/** An unknown node's path (shared, as every node's path is shared by the samples taken under it). */
const NO_PATH: Frame[] = [];

/**
 * The call path (outermost first) of a node of the tree, built on first use: only nodes on the
 * paths of samples and allocations get one (yosys's tree holds millions of nodes).
 */
function decodePaths(raw: Uint8Array, layout: SampleLayout, next: number): (node: number) => Frame[] {
  const nodes = new Map(
    readContextNodes(raw, layout.tree, next, (f) => layout.nodeBytes[f] ?? 0).map((node) => [node.address, node]),
  );
  const paths = new Map<number, Frame[]>();
  const pathOf = (address: number): Frame[] => {
    const known = paths.get(address);
    if (known) return known;
    // The node and its ancestors without a path yet, innermost first.
    const pending: RawContextNode[] = [];
    // A parent is a node written before its child (a higher address is a corrupt link: no parent).
    const parentOf = (node: RawContextNode) => (node.parent < node.address ? nodes.get(node.parent) : undefined);
    for (let at = nodes.get(address); at && !paths.has(at.address); at = parentOf(at)) pending.push(at);
    if (pending.length === 0) return NO_PATH;
    for (let k = pending.length - 1; k >= 0; k--) {
      const node = pending[k]!;
      const parent = (node.parent < node.address ? paths.get(node.parent) : undefined) ?? NO_PATH;
      const call =
        node.site === EXTERNAL_SITE || node.parent === layout.tree.base ? null : (node.site - NODE_HEADER.bytes) / 4;
      paths.set(node.address, [
        ...(call === null ? NO_PATH : parent),
        { function: node.functionIndex, call, node: node.address },
      ]);
    }
    return paths.get(address) ?? NO_PATH;
  };
  return pathOf;
}

/** A sample whose region records no store address: its (empty) address list is shared. */
const NO_ADDRESSES: number[] = [];

/**
 * The samples of the run's records, chunk after chunk (one stream: a short record refers to the
 * record before it, also across a drain). A full record is as long as its region's recorded store
 * addresses (sampleRecordBytes), a short one (SHORT_RECORD) repeats the previous record's node,
 * allocation-log length and stack pointer, and only the recorded addresses are read (yosys keeps
 * millions of samples: a list of 8 per sample was most of their memory).
 */
export function decodeSamples(chunks: Uint8Array[], layout: SampleLayout, pathOf: (node: number) => Frame[]): Sample[] {
  const samples: Sample[] = [];
  forEachSample(chunks, layout, pathOf, (sample) => void samples.push(sample));
  return samples;
}

/** decodeSamples's samples one by one, none kept. */
export function forEachSample(
  chunks: Uint8Array[],
  layout: SampleLayout,
  pathOf: (node: number) => Frame[],
  visit: SampleVisit,
): void {
  const allocationBase = layout.allocations.base;
  const leafOf = foldedLeafLookup(layout);
  // A packed region reads its recorded stores back on every use: counted once per region.
  const recordedCounts = new Map<number, number>();
  const recordedOf = (region: number, at: number): number => {
    let recorded = recordedCounts.get(region);
    if (recorded === undefined) {
      const known = layout.regions[region]?.recorded.length;
      if (known === undefined) throw new Error(`internal: corrupt sample record at byte ${at} (region ${region})`);
      recordedCounts.set(region, (recorded = Math.min(MAX_ADDRESSES, known)));
    }
    return recorded;
  };
  // The context of the last record read: a short record repeats it (and its region when flagged).
  let region = -1;
  let path: Frame[] = NO_PATH;
  let allocations = 0;
  let stackPointer = 0;
  for (const raw of chunks) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let at = 0; at < raw.byteLength;) {
      const u32 = (offset: number) => view.getUint32(at + offset, true);
      const first = view.getInt32(at, true);
      let countdown: number;
      let addressesAt: number;
      if (first >= 0) {
        region = first;
        path = pathOf(u32(SAMPLE_RECORD.node));
        allocations = (u32(SAMPLE_RECORD.allocs) - allocationBase) / ALLOC_RECORD.size;
        stackPointer = u32(SAMPLE_RECORD.stack);
        countdown = view.getInt32(at + SAMPLE_RECORD.countdown, true);
        addressesAt = SAMPLE_RECORD.addresses;
      } else {
        if (region < 0) throw new Error(`internal: corrupt sample record at byte ${at} (a short record first)`);
        const sameRegion = (first & SHORT_RECORD.regionFlag) !== 0;
        if (!sameRegion) region = u32(4);
        countdown = first | SHORT_RECORD.regionFlag;
        addressesAt = sameRegion ? SHORT_RECORD.sameRegionBytes : SHORT_RECORD.newRegionBytes;
      }
      const recorded = recordedOf(region, at);
      const addresses: number[] = recorded === 0 ? NO_ADDRESSES : [];
      for (let k = 0; k < recorded; k++) addresses.push(u32(addressesAt + 4 * k));
      if (visit({ region, path, allocations, stackPointer, addresses, leaf: leafOf(region, countdown) }) === false)
        return;
      at += addressesAt + 4 * recorded;
    }
  }
}

function decodeAllocations(raw: Uint8Array, pathOf: (node: number) => Frame[]): AllocationEvent[] {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const events: AllocationEvent[] = [];
  for (let at = 0; at + ALLOC_RECORD.size <= raw.byteLength; at += ALLOC_RECORD.size) {
    const u32 = (offset: number) => view.getUint32(at + offset, true);
    const kind = ALLOC_KINDS[u32(ALLOC_RECORD.kind)];
    if (!kind) throw new Error(`internal: corrupt allocation log at record ${at / ALLOC_RECORD.size}`);
    const site = view.getInt32(at + ALLOC_RECORD.site, true);
    events.push({
      kind,
      address: u32(ALLOC_RECORD.address),
      bytes: u32(ALLOC_RECORD.bytes),
      old: u32(ALLOC_RECORD.old),
      path: pathOf(u32(ALLOC_RECORD.node)),
      growSite: site < 0 ? null : site,
    });
  }
  return events;
}
