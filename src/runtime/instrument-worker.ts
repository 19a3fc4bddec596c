// Entry point of an instrumentation worker thread (isolated-instrument.ts): one module in, the
// instrumented module and its site table out. Binaryen's heap lives and dies with this thread.
import { parentPort, workerData } from 'node:worker_threads';
import { concat } from '../../instrument/binary-patch.js';
import { instrumentCached } from '../../instrument/cache.js';
import { splitPackedFacts } from '../../instrument/facts-file.js';
import type { InstrumentReply, InstrumentRequest } from './isolated-instrument.js';

const request = workerData as InstrumentRequest;
let reply: InstrumentReply;
const transfer: ArrayBuffer[] = [];
try {
  const result = instrumentCached(request.bytes, request.file, request.modes, request.options, request.cache);
  // Packed facts are class instances a message would flatten: they travel as the cache keeps them.
  const split = splitPackedFacts(result.sites);
  const facts = split ? concat(split.facts) : null;
  const bytes = owned(result.bytes);
  transfer.push(bytes.buffer as ArrayBuffer);
  if (facts) transfer.push(facts.buffer as ArrayBuffer);
  reply = { ok: true, bytes, sites: split ? split.table : result.sites, facts, cached: result.cached };
} catch (error) {
  const e = error as Error & { exitCode?: number; file?: string };
  reply = {
    ok: false,
    name: e instanceof Error ? e.name : 'Error',
    message: e instanceof Error ? e.message : String(error),
    ...(typeof e?.exitCode === 'number' ? { exitCode: e.exitCode } : {}),
    ...(typeof e?.file === 'string' ? { file: e.file } : {}),
  };
}
parentPort!.postMessage(reply, transfer);

/** The bytes in an array that owns its whole buffer (copied when they are a view into a larger one). */
function owned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
