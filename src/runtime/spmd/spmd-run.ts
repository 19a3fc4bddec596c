// The SPMD host: P instances of one module, one worker thread per rank, sharing a SharedArrayBuffer
// through which `taintlens_mp` passes messages. Each repetition gets fresh workers and fresh shared
// memory (nothing left over from the previous one). The first rank that fails (trap, deadlock,
// exit) ends the whole run: the others are told to stop, then terminated, and every worker has
// exited before this returns or throws.
import type { Worker } from 'node:worker_threads';
import type { RunRequest, RunResponse, RepetitionResult } from '../protocol.js';
import { createShared, MAX_RANKS, SharedState } from './shared-state.js';
import { mpPluginUrl, type MpPluginOptions, type MpPluginResult } from './mp-plugin.js';
import type { OpStats } from './op-stats.js';

export interface RankRepetition extends RepetitionResult {
  /** Time and bytes per communication import in this repetition (first call apart). */
  communication: Record<string, OpStats>;
}

export interface RankOutcome {
  rank: number;
  repetitions: RankRepetition[];
}

export type SpmdResult =
  | { ok: true; kind: Extract<RunResponse, { ok: true }>['kind']; ranks: RankOutcome[] }
  | { ok: false; rank: number | null; response: Extract<RunResponse, { ok: false }>; timedOut: boolean };

/** How long ranks get to leave by themselves after a failure before they are terminated. */
const GRACE_MS = 300;

export function checkRanks(ranks: number): string | null {
  if (!Number.isInteger(ranks) || ranks < 1 || ranks > MAX_RANKS)
    return `--ranks must be a whole number from 1 to ${MAX_RANKS}, got '${ranks}'`;
  return null;
}

export async function runSpmd(
  request: RunRequest,
  size: number,
  timeoutMs: number,
  start: (request: RunRequest) => Worker,
): Promise<SpmdResult> {
  const deadline = Date.now() + timeoutMs;
  const ranks: RankOutcome[] = Array.from({ length: size }, (_, rank) => ({ rank, repetitions: [] }));
  let kind: Extract<RunResponse, { ok: true }>['kind'] = 'plain';
  for (let rep = 0; rep < request.repeat; rep++) {
    const result = await oneRepetition(request, size, deadline - Date.now(), start);
    if (!result.ok) return result;
    kind = result.kind;
    result.responses.forEach((repetition, rank) => ranks[rank]!.repetitions.push(repetition));
  }
  return { ok: true, kind, ranks };
}

type RepetitionOutcome =
  | { ok: true; kind: Extract<RunResponse, { ok: true }>['kind']; responses: RankRepetition[] }
  | Extract<SpmdResult, { ok: false }>;

function oneRepetition(
  request: RunRequest,
  size: number,
  timeoutMs: number,
  start: (request: RunRequest) => Worker,
): Promise<RepetitionOutcome> {
  const layout = createShared(size);
  const shared = new SharedState(layout);
  const workers = Array.from({ length: size }, (_, rank) => {
    const options: MpPluginOptions = { layout, rank };
    return start({ ...request, repeat: 1, plugins: [{ url: mpPluginUrl, options }, ...request.plugins] });
  });
  const responses: Array<RunResponse | undefined> = new Array(size);
  let outcome: RepetitionOutcome | null = null;
  let exited = 0;
  return new Promise((resolve) => {
    const stopAll = () => {
      shared.abort();
      const timer = setTimeout(() => workers.forEach((w) => void w.terminate()), GRACE_MS);
      timer.unref();
    };
    const fail = (rank: number | null, response: Extract<RunResponse, { ok: false }>, timedOut = false) => {
      if (outcome) return;
      outcome = { ok: false, rank, response, timedOut };
      stopAll();
    };
    const timer = setTimeout(
      () => {
        fail(null, { ok: false, failure: 'limit', message: shared.describeStates() }, true);
      },
      Math.max(0, timeoutMs),
    );
    workers.forEach((worker, rank) => {
      worker.once('message', (message: RunResponse) => {
        responses[rank] = message;
        // A rank told to stop because another failed is not the news.
        if (!message.ok && message.failure !== 'stopped') fail(rank, message);
      });
      worker.once('error', (error) => fail(rank, { ok: false, failure: 'internal', message: error.message }));
      worker.once('exit', (code) => {
        if (!responses[rank])
          fail(rank, { ok: false, failure: 'internal', message: `run worker exited unexpectedly (code ${code})` });
        if (++exited < size) return;
        clearTimeout(timer);
        resolve(outcome ?? collect(responses as RunResponse[]));
      });
    });
  });
}

function collect(responses: RunResponse[]): RepetitionOutcome {
  const ok = responses.filter((r): r is Extract<RunResponse, { ok: true }> => r.ok);
  const failed = responses.findIndex((r) => !r.ok);
  if (failed >= 0)
    return {
      ok: false,
      rank: failed,
      response: responses[failed] as Extract<RunResponse, { ok: false }>,
      timedOut: false,
    };
  return {
    ok: true,
    kind: ok[0]!.kind,
    responses: ok.map((response) => {
      const repetition = response.repetitions[0]!;
      const [mp, ...plugins] = repetition.plugins as [MpPluginResult, ...unknown[]];
      return { ...repetition, plugins, communication: mp.communication };
    }),
  };
}
