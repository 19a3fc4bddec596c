// Entry point of a run worker thread: one request in, one response out.
import { parentPort, workerData } from 'node:worker_threads';
import { execute } from './execute.js';
import type { RunRequest } from './protocol.js';
import { messageOf } from '../util/errors.js';

// node:wasi warns that it is experimental on every construction; that is noise in a CLI's output.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  if (String(warning).includes('WASI')) return;
  (emitWarning as (w: string | Error, ...r: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

const request = workerData as RunRequest;
execute(request).then(
  (response) => parentPort!.postMessage(response),
  (error: unknown) => parentPort!.postMessage({ ok: false, failure: 'internal', message: messageOf(error) }),
);
