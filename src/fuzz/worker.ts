// A fuzz worker: checks the cases it is sent and, for a failure, shrinks the module before replying.
import { parentPort } from 'node:worker_threads';
import { checkModule, isFailure } from './differential.js';
import { generate, sourceFor } from './sources.js';
import { shrink } from './shrink.js';
import type { WorkerReply, WorkerRequest } from './pool.js';

export function handle(request: WorkerRequest, progress: (found: WorkerReply) => void): WorkerReply {
  let bytes: Uint8Array;
  let source = request.source;
  try {
    if (request.bytes) {
      bytes = request.bytes;
    } else {
      const kind = sourceFor(request.source, request.seed);
      source = kind;
      bytes = generate(kind, request.seed);
    }
  } catch (error) {
    return {
      id: request.id,
      report: {
        seed: request.seed,
        source,
        skipped: `generation failed: ${(error as Error).message.split('\n')[0]}`,
        variants: {},
      },
    };
  }
  const report = checkModule(bytes, request.seed, source, request.variants);
  const failures = Object.entries(report.variants).filter(([, outcome]) => isFailure(outcome));
  if (failures.length === 0) return { id: request.id, report };
  const reduced: WorkerReply['reduced'] = [];
  // What was found, unshrunk, so a shrink that overruns its time still leaves a reproducer.
  if (request.shrinkMs > 0)
    progress({
      id: request.id,
      report,
      original: bytes,
      reduced: failures.map(([name]) => ({ variant: name, bytes })),
    });
  for (const [name, outcome] of failures) {
    const variant = request.variants.find((v) => v.name === name)!;
    const shrunk = request.shrinkMs > 0 ? shrink(bytes, request.seed, variant, outcome, request.shrinkMs).bytes : bytes;
    reduced.push({ variant: name, bytes: shrunk });
  }
  return { id: request.id, report, original: bytes, reduced };
}

// Binaryen prints validation errors of rejected shrink candidates (and of our own modules, which the
// report already names) on stderr: keep the campaign's output readable.
if (parentPort && !process.env.TAINTLENS_FUZZ_VERBOSE) process.stderr.write = () => true;

parentPort?.on('message', (request: WorkerRequest) => {
  try {
    parentPort!.postMessage(handle(request, (found) => parentPort!.postMessage({ ...found, phase: 'shrinking' })));
  } catch (error) {
    const reply: WorkerReply = {
      id: request.id,
      report: {
        seed: request.seed,
        source: request.source,
        variants: {},
        error: `internal error in the fuzzer: ${(error as Error).stack ?? String(error)}`,
      },
    };
    parentPort!.postMessage(reply);
  }
});

// Loaded: from now on the pool's limit per case applies.
parentPort?.postMessage({ ready: true });
