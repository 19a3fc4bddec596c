// A cache of instrumented modules keyed by content: the hash of the input module, the modes, the
// options and the instrumenter's own code (every file the pipeline loads, found by following its
// imports, and the Binaryen version), so `loops` and `taint` of a large program do not instrument
// it again on every call. Lives in node_modules/.cache/taintlens (or
// $TAINTLENS_CACHE; TAINTLENS_CACHE=off disables it). Modules under 8 KiB (AssemblyScript kernels,
// fuzz modules) are not cached: they instrument in milliseconds. A 48 KiB C program takes 2.5 s of
// taint instrumentation (libc included), so from there on the cache pays. The cache is bounded (cache-limit.ts): least
// recently used entries go once it holds more than 1 GiB ($TAINTLENS_CACHE_MAX_MB).
import { constants } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../src/util/atomic-write.js';
import { jsonPieces } from '../src/util/json-text.js';
import { moduleGraph } from '../src/util/module-graph.js';
import { instrumentModule, type InstrumentOptions, type InstrumentResult } from './pipeline.js';
import { cacheMaxBytes, pruneCache, touchEntry } from './cache-limit.js';
import { hasSplitFacts, joinPackedFacts, splitPackedFacts } from './facts-file.js';

const here = dirname(fileURLToPath(import.meta.url));
export const CACHE_MIN_BYTES = 8 << 10;

export interface CacheOptions {
  /** Cache directory (default $TAINTLENS_CACHE, else node_modules/.cache/taintlens of the package). */
  dir?: string;
  /** Modules smaller than this are instrumented without the cache. */
  minBytes?: number;
  /** Most bytes the cache may hold (default $TAINTLENS_CACHE_MAX_MB MiB, else 1 GiB). */
  maxBytes?: number;
}

let codeHash: string | undefined;

/** The pipeline's file beside this one: pipeline.ts in source, pipeline.js when built. */
export const PIPELINE_ENTRY = join(here, `pipeline${extname(fileURLToPath(import.meta.url))}`);

/**
 * Hash of the instrumenter's code, every file the pipeline loads (instrument/, its passes and
 * debug readers, the src/util modules they use) and the packages they import: a cache entry
 * from another version of any of them is never used.
 */
function instrumenterHash(): string {
  return (codeHash ??= moduleGraph(PIPELINE_ENTRY).hash);
}

function defaultDir(): string | null {
  const configured = process.env.TAINTLENS_CACHE;
  if (configured === 'off') return null;
  if (configured) return configured;
  // The package root: instrument/ sits under it in source and under dist/ when built.
  let root = here;
  while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
  return join(root, 'node_modules', '.cache', 'taintlens');
}

/** `code` is the instrumenter's hash (tests pass that of a modified copy). */
export function cacheKey(
  bytes: Uint8Array,
  modes: string[],
  options: InstrumentOptions,
  code = instrumenterHash(),
): string {
  return createHash('sha256').update(code).update(bytes).update(JSON.stringify({ modes, options })).digest('hex');
}

/** instrumentModule, through the cache. `cached` says whether the result came from it. */
export function instrumentCached(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions = {},
  cache: CacheOptions = {},
): InstrumentResult & { cached: boolean } {
  const entry = cacheEntry(bytes, modes, options, cache);
  if (entry === null) return { ...instrumentModule(bytes, file, modes, options), cached: false };
  const { dir, key } = entry;
  const found = readCached(dir, key, file);
  if (found) return found;
  const maxBytes = cache.maxBytes ?? cacheMaxBytes();
  const { wasm, sites, facts } = entryFiles(dir, key);
  const result = instrumentModule(bytes, file, modes, options);
  try {
    // An entry larger than the whole cache is not kept, nor a table too long to be read back as one
    // string. A sample table's packed facts go to a file of their own (facts-file.ts): yosys's are
    // most of its table.
    const split = splitPackedFacts(result.sites);
    const factBytes = split ? split.facts.reduce((n, piece) => n + piece.byteLength, 0) : 0;
    if (result.bytes.length + factBytes < maxBytes) {
      mkdirSync(dir, { recursive: true });
      if (split) writeFileAtomic(facts, split.facts);
      writeFileAtomic(
        sites,
        bounded(
          jsonPieces(split ? split.table : result.sites),
          Math.min(maxBytes - result.bytes.length - factBytes, constants.MAX_STRING_LENGTH),
        ),
      );
      writeFileAtomic(wasm, result.bytes);
      pruneCache(dir, maxBytes, key);
    }
  } catch {
    // A cache that cannot be written only costs time.
  }
  return { ...result, cached: false };
}

/**
 * The cache's entry for these inputs, or null when there is none (or no cache, or the module is
 * small enough not to be cached): what instrumentCached returns, without instrumenting.
 */
export function lookupCached(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions = {},
  cache: CacheOptions = {},
): (InstrumentResult & { cached: true }) | null {
  const entry = cacheEntry(bytes, modes, options, cache);
  return entry === null ? null : readCached(entry.dir, entry.key, file);
}

/** Where these inputs' entry is kept, or null when nothing is cached (no cache, or a module under its minimum size). */
function cacheEntry(
  bytes: Uint8Array,
  modes: string[],
  options: InstrumentOptions,
  cache: CacheOptions,
): { dir: string; key: string } | null {
  const dir = cache.dir ?? defaultDir();
  if (dir === null || bytes.length < (cache.minBytes ?? CACHE_MIN_BYTES)) return null;
  return { dir, key: cacheKey(bytes, modes, options) };
}

function entryFiles(dir: string, key: string): { wasm: string; sites: string; facts: string } {
  return { wasm: join(dir, `${key}.wasm`), sites: join(dir, `${key}.sites.json`), facts: join(dir, `${key}.facts`) };
}

function readCached(dir: string, key: string, file: string): (InstrumentResult & { cached: true }) | null {
  const { wasm, sites, facts } = entryFiles(dir, key);
  try {
    if (existsSync(wasm) && existsSync(sites)) {
      let table = JSON.parse(readFileSync(sites, 'utf8')) as InstrumentResult['sites'];
      if (hasSplitFacts(table)) table = joinPackedFacts(table, readFileSync(facts), facts);
      touchEntry(dir, key);
      return { bytes: new Uint8Array(readFileSync(wasm)), sites: { ...table, module: file }, cached: true };
    }
  } catch {
    // An unreadable entry is instrumented again and rewritten.
  }
  return null;
}

/** The pieces, failing (the write is abandoned) once they come to more than `limit` bytes. */
function* bounded(pieces: Iterable<string>, limit: number): Generator<string> {
  let bytes = 0;
  for (const piece of pieces) {
    bytes += Buffer.byteLength(piece);
    if (bytes > limit) throw new Error(`site table over ${limit} bytes: not cached`);
    yield piece;
  }
}
