// Runs fuzz cases on worker threads: one core each, a wall-clock limit per case (a worker that
// exceeds it is terminated and replaced, and the case is reported as a timeout), results in order.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker-code.js';
import type { CaseReport, Variant } from './differential.js';

export interface WorkerRequest {
  id: number;
  seed: number;
  /** ttf, gen, mixed, or a label for given bytes. */
  source: string;
  bytes?: Uint8Array;
  variants: Variant[];
  /** Time budget for shrinking each failing variant (0: keep the module as it is). */
  shrinkMs: number;
}

export interface WorkerReply {
  id: number;
  report: CaseReport & { error?: string; timeout?: boolean };
  original?: Uint8Array;
  reduced?: Array<{ variant: string; bytes: Uint8Array }>;
}

export interface PoolOptions {
  workers: number;
  /** Limit for checking one case (shrinking gets its own budget on top). */
  caseTimeoutMs: number;
  onReply: (reply: WorkerReply) => void;
}

/** A new worker loads Binaryen and our sources first: on a busy machine that alone can take a while. */
const STARTUP_ALLOWANCE_MS = 120_000;

function spawn(): Worker {
  return startWorker('fuzz/worker');
}

export async function runPool(requests: Iterable<WorkerRequest>, options: PoolOptions): Promise<void> {
  const queue = requests[Symbol.iterator]();
  const slots = Math.max(1, options.workers);
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let done = false;
    const next = (): WorkerRequest | null => {
      if (done) return null;
      const item = queue.next();
      if (item.done) {
        done = true;
        return null;
      }
      return item.value;
    };
    const start = () => {
      let worker = spawn();
      let current: WorkerRequest | null = null;
      let found: WorkerReply | null = null;
      let timer: NodeJS.Timeout | undefined;
      // The limit per case counts from when the worker is ready, not from while it is still loading.
      let ready = false;
      active++;
      const arm = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          const request = current!;
          current = null;
          worker.removeAllListeners();
          void worker.terminate();
          // Past the limit while shrinking: report what was found, unshrunk.
          options.onReply(
            found ?? {
              id: request.id,
              report: { seed: request.seed, source: request.source, variants: {}, timeout: true },
            },
          );
          found = null;
          worker = spawn();
          ready = false;
          wire();
          feed();
        }, ms);
      };
      const feed = () => {
        current = next();
        if (!current) {
          clearTimeout(timer);
          void worker.terminate();
          if (--active === 0) resolve();
          return;
        }
        arm(options.caseTimeoutMs + (ready ? 0 : STARTUP_ALLOWANCE_MS));
        worker.postMessage(current);
      };
      const wire = () => {
        worker.on('message', (message: WorkerReply & { phase?: string; ready?: true }) => {
          if (message.ready) {
            ready = true;
            if (current && !found) arm(options.caseTimeoutMs);
            return;
          }
          if (message.phase) {
            const { phase: _, ...reply } = message;
            found = reply;
            arm(options.caseTimeoutMs + (current?.shrinkMs ?? 0) * Math.max(1, current?.variants.length ?? 1) + 10_000);
            return;
          }
          clearTimeout(timer);
          current = null;
          found = null;
          try {
            options.onReply(message);
          } catch (error) {
            reject(error);
            return;
          }
          feed();
        });
        worker.on('error', (error) => {
          clearTimeout(timer);
          const request = current;
          current = null;
          if (request)
            options.onReply({
              id: request.id,
              report: {
                seed: request.seed,
                source: request.source,
                variants: {},
                error: `worker failed: ${error.message}`,
              },
            });
          worker.removeAllListeners();
          worker = spawn();
          ready = false;
          wire();
          feed();
        });
      };
      wire();
      feed();
    };
    for (let i = 0; i < slots; i++) start();
  });
}
