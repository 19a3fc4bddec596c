// The sampling pass's packed facts (packed-facts.ts) as a binary file beside the site table's JSON,
// for the instrumentation cache (cache.ts): yosys's sample table written as JSON is longer than a
// string can be, so it could not be cached and every `sample` and `blame` instrumented yosys again.
// Split, the JSON keeps each function's head (params, local names, callees, ...) and a marker; the
// file keeps the words as they are packed, and reading it back builds the same packed objects
// (no unpacking until blame reads a function's facts). The words are written in the machine's byte
// order: the cache is local to the machine.
import type { InstrumentedSites } from './pipeline.js';
import type { SampleLayout } from './passes/sample.js';
import { PackedFunctionFacts, PackedRegion, type FunctionFactsHead, type PackedWords } from './packed-facts.js';

/** The marker the split table's sample layout carries instead of its facts and regions. */
interface FactsMarker {
  functions: number;
  regions: number;
}

type HeadWithStrings = FunctionFactsHead & Pick<PackedWords, 'wide' | 'strings'>;

interface SplitLayout extends Omit<SampleLayout, 'functions' | 'regions'> {
  functions: HeadWithStrings[];
  regions: null;
  packedFacts: FactsMarker;
}

const MAGIC = 0x31465054; // "TPF1"
/** Word arrays per function, in this order. */
const ARRAYS = ['facts', 'asts', 'regions', 'stores', 'recordedStarts'] as const;

/**
 * The table with its sample layout's facts taken out, and the file holding them; null when the
 * table has no sample layout or holds something this file cannot carry exactly (unpacked facts,
 * a wide number JSON would not keep).
 */
export function splitPackedFacts(sites: InstrumentedSites): { table: InstrumentedSites; facts: Uint8Array[] } | null {
  const layout = sites.passes.sample as SampleLayout | undefined;
  if (!layout || !Array.isArray(layout.functions) || !Array.isArray(layout.regions)) return null;
  const packed: PackedFunctionFacts[] = [];
  for (const fn of layout.functions) {
    if (!(fn instanceof PackedFunctionFacts)) return null;
    if (fn.words.wide.some((n) => !Number.isFinite(n) || Object.is(n, -0))) return null;
    packed.push(fn);
  }
  const owners = new Map(packed.map((fn, at) => [fn, at]));
  const regionWords = new Int32Array(3 * layout.regions.length);
  for (let r = 0; r < layout.regions.length; r++) {
    const region = layout.regions[r];
    const owner = region instanceof PackedRegion ? owners.get(region.owner) : undefined;
    if (region === undefined || !(region instanceof PackedRegion) || owner === undefined) return null;
    regionWords.set([owner, region.function, region.index], 3 * r);
  }
  const header = Int32Array.of(MAGIC, packed.length, layout.regions.length);
  const facts: Uint8Array[] = [bytesOf(header)];
  for (const fn of packed) {
    facts.push(bytesOf(Int32Array.from(ARRAYS, (name) => fn.words[name].length)));
    for (const name of ARRAYS) facts.push(bytesOf(fn.words[name]));
  }
  facts.push(bytesOf(regionWords));
  const heads: HeadWithStrings[] = packed.map((fn) => ({
    index: fn.index,
    params: fn.params,
    localNames: fn.localNames,
    loopParents: fn.loopParents,
    callees: fn.callees,
    grows: fn.grows,
    stackLocals: fn.stackLocals,
    wide: fn.words.wide,
    strings: fn.words.strings,
  }));
  const split: SplitLayout = {
    ...layout,
    functions: heads,
    regions: null,
    packedFacts: { functions: packed.length, regions: layout.regions.length },
  };
  return { table: { ...sites, passes: { ...sites.passes, sample: split } }, facts };
}

/** Whether a table read back from JSON is a split one (its facts are in a facts file). */
export function hasSplitFacts(table: InstrumentedSites): boolean {
  const layout = table.passes.sample as Partial<SplitLayout> | undefined;
  return layout?.packedFacts !== undefined;
}

/** The table with its facts put back from the file's bytes (as splitPackedFacts took them out). */
export function joinPackedFacts(table: InstrumentedSites, file: Uint8Array, name: string): InstrumentedSites {
  const layout = table.passes.sample as SplitLayout;
  // Word views need 4-byte alignment: a file read into a pooled buffer may not have it.
  const bytes = file.byteOffset % 4 === 0 ? file : file.slice();
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  let at = 0;
  const take = (count: number): Int32Array => {
    if (at + count > words.length) throw new Error(`${name}: facts file shorter than its table says`);
    const view = words.subarray(at, at + count);
    at += count;
    return view;
  };
  const [magic, functionCount, regionCount] = take(3);
  const marker = layout.packedFacts;
  if (magic !== MAGIC || functionCount !== marker.functions || regionCount !== marker.regions)
    throw new Error(`${name}: facts file does not match its table`);
  const functions = layout.functions.map(({ wide, strings, ...head }) => {
    const lengths = take(ARRAYS.length);
    const arrays = ARRAYS.map((_, k) => take(lengths[k]!));
    const [facts, asts, regions, stores, recordedStarts] = arrays as [
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
    return new PackedFunctionFacts(head, { facts, asts, regions, stores, recordedStarts, wide, strings });
  });
  const regionWords = take(3 * regionCount);
  if (at !== words.length) throw new Error(`${name}: facts file longer than its table says`);
  const regions: PackedRegion[] = [];
  for (let r = 0; r < regionCount; r++) {
    const owner = functions[regionWords[3 * r]!];
    if (!owner) throw new Error(`${name}: facts file names a function it does not hold`);
    regions.push(new PackedRegion(regionWords[3 * r + 1]!, regionWords[3 * r + 2]!, owner));
  }
  // The layout's keys in their order (the site table's JSON stays the same text).
  const joined: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(layout)) {
    if (key === 'functions') joined[key] = functions;
    else if (key === 'regions') joined[key] = regions;
    else if (key !== 'packedFacts') joined[key] = value;
  }
  return { ...table, passes: { ...table.passes, sample: joined as unknown as SampleLayout } };
}

function bytesOf(words: Int32Array): Uint8Array {
  return new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
}
