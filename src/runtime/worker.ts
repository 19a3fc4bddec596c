// Entry point of a run worker thread: one request in, one response out.
import { parentPort, workerData } from 'node:worker_threads';
import { execute } from './execute.js';
import type { RunRequest } from './protocol.js';
import { messageOf } from '../util/errors.js';

const request = workerData as RunRequest;
execute(request).then(
  (response) => parentPort!.postMessage(response),
  (error: unknown) => parentPort!.postMessage({ ok: false, failure: 'internal', message: messageOf(error) }),
);
