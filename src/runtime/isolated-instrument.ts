// Instrumentation for the commands that then run the module (loops, sample, blame, taint, its
// coverage run): a large module is instrumented in a worker thread, so Binaryen's heap (2.5 GB on
// yosys) is gone when the thread ends instead of staying in the process beside the run and the
// analysis. A small one is instrumented here: the thread's start (loading Binaryen again) would
// cost more than it saves. The instrumentation cache is read here first, so a cached module starts
// no thread.
import { instrumentCached, lookupCached, type CacheOptions } from '../../instrument/cache.js';
import { hasSplitFacts, joinPackedFacts } from '../../instrument/facts-file.js';
import type { InstrumentOptions, InstrumentResult, InstrumentedSites } from '../../instrument/pipeline.js';
import { UserError } from '../util/errors.js';
import { startWorker } from '../util/worker-code.js';

/** Modules from this size on are instrumented in a worker thread ($TAINTLENS_ISOLATE_BYTES overrides). */
export const ISOLATE_MIN_BYTES = 1 << 20;

/**
 * The thread's young generation (3 semi-spaces' worth): the passes make many short-lived objects
 * per expression, and V8's default (16 MiB semi-spaces) promoted enough of them to spend a fifth of
 * yosys's sample instrumentation in GC. At 64 MiB semi-spaces, four alternating pairs on yosys
 * took 3–9% less CPU and up to 470 MiB less peak RSS.
 */
const YOUNG_GENERATION_MB = 192;

export interface InstrumentRequest {
  bytes: Uint8Array;
  file: string;
  modes: string[];
  options: InstrumentOptions;
  cache: CacheOptions;
}

export type InstrumentReply =
  | { ok: true; bytes: Uint8Array; sites: InstrumentedSites; facts: Uint8Array | null; cached: boolean }
  | { ok: false; name: string; message: string; exitCode?: number; file?: string };

/** instrumentCached, in a worker thread for a module of `isolateBytes` (default ISOLATE_MIN_BYTES) or more. */
export async function instrumentIsolated(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions = {},
  cache: CacheOptions & { isolateBytes?: number } = {},
): Promise<InstrumentResult & { cached: boolean }> {
  const { isolateBytes = isolateThreshold(), ...cacheOptions } = cache;
  if (bytes.length < isolateBytes) return instrumentCached(bytes, file, modes, options, cacheOptions);
  const found = lookupCached(bytes, file, modes, options, cacheOptions);
  if (found) return found;
  const reply = await instrumentInThread(bytes, file, modes, options, cacheOptions);
  const sites =
    reply.facts && hasSplitFacts(reply.sites) ? joinPackedFacts(reply.sites, reply.facts, file) : reply.sites;
  return { bytes: reply.bytes, sites, cached: reply.cached };
}

/** Whether instrumentIsolated would start a thread for a module of this size. */
export function isolates(bytes: Uint8Array): boolean {
  return bytes.length >= isolateThreshold();
}

/**
 * instrumentCached in a worker thread, always; a sample table comes back with its packed facts
 * split out (facts-file.ts), the form `instrument` writes and the cache keeps.
 */
export async function instrumentInThread(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions,
  cache: CacheOptions,
): Promise<Extract<InstrumentReply, { ok: true }>> {
  const reply = await inWorker({ bytes, file, modes, options, cache });
  if (!reply.ok) throw errorOf(reply);
  return reply;
}

function isolateThreshold(): number {
  const configured = Number(process.env.TAINTLENS_ISOLATE_BYTES);
  return process.env.TAINTLENS_ISOLATE_BYTES !== undefined && Number.isFinite(configured)
    ? configured
    : ISOLATE_MIN_BYTES;
}

function inWorker(request: InstrumentRequest): Promise<InstrumentReply> {
  const worker = startWorker('runtime/instrument-worker', {
    workerData: request,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  return new Promise((resolve, reject) => {
    let reply: InstrumentReply | null = null;
    worker.once('message', (message: InstrumentReply) => (reply = message));
    worker.once('error', (error) => reject(new Error(`internal: instrumentation worker failed: ${error.message}`)));
    // Resolved once the thread has ended, so its heap is released before the run starts.
    worker.once('exit', (code) => {
      if (reply) resolve(reply);
      else reject(new Error(`internal: instrumentation worker exited without a result (code ${code})`));
    });
  });
}

/** The worker's failure as the error it was: a user error keeps its message, file and exit code. */
function errorOf(reply: Extract<InstrumentReply, { ok: false }>): Error {
  if (reply.name === 'UserError') {
    const error = new UserError(reply.message, reply.exitCode);
    if (reply.file !== undefined) error.file = reply.file;
    return error;
  }
  const error = new Error(reply.message);
  error.name = reply.name;
  return error;
}
