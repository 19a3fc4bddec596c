// The memory every rank of an SPMD run shares (one SharedArrayBuffer): a progress counter, an abort
// flag, per rank a doorbell (the only word a rank ever waits on) and what it is blocked in, and one
// single-slot channel per ordered pair of ranks and plane (user messages, collectives). A message
// longer than a slot travels in chunks. Everything here is plain Atomics: no locks, no JS events.

import { randomUUID } from 'node:crypto';

export const MAX_RANKS = 32;
/** Bytes of one channel slot: a longer message is split into chunks of this size. */
export const SLOT_BYTES = 16 * 1024;
export const PLANES = 2;
export const USER_PLANE = 0;
export const COLLECTIVE_PLANE = 1;

/** What a rank is doing, as kept in its state word (read by the deadlock check and the timeout message). */
export const STATE = {
  starting: 0,
  running: 1,
  send: 2,
  recv: 3,
  barrier: 4,
  bcast: 5,
  reduce: 6,
  allreduce: 7,
  sendrecv: 8,
  done: 9,
  // MPI calls of native/include/mpi.h (src/runtime/spmd/mpi-rank.ts)
  wait: 10,
  probe: 11,
  gather: 12,
  allgather: 13,
  scatter: 14,
  alltoall: 15,
  scan: 16,
  comm_split: 17,
} as const;
export type StateName = keyof typeof STATE;
const STATE_NAMES = Object.keys(STATE) as StateName[];

const PROGRESS = 0;
const ABORT = 1;
const HEADER_WORDS = 4;
/** Per rank: doorbell, state, peer, and the doorbell value it last looked at before waiting. */
const RANK_WORDS = 4;
/** Per channel: full flag, chunk bytes, tag, message bytes. */
const CHANNEL_WORDS = 4;

export interface SharedLayout {
  size: number;
  buffer: SharedArrayBuffer;
  /** Names this run's mailboxes (BroadcastChannel names, unique per run: src/runtime/spmd/mailbox.ts). */
  mailboxPrefix: string;
}

export function sharedBytes(size: number): number {
  return (
    4 * (HEADER_WORDS + RANK_WORDS * size + CHANNEL_WORDS * PLANES * size * size) + SLOT_BYTES * PLANES * size * size
  );
}

export function createShared(size: number): SharedLayout {
  return { size, buffer: new SharedArrayBuffer(sharedBytes(size)), mailboxPrefix: `taintlens-mp:${randomUUID()}` };
}

/** One rank's view of the shared memory. */
export class SharedState {
  readonly words: Int32Array;
  readonly bytes: Uint8Array;
  private readonly dataStart: number;

  constructor(readonly layout: SharedLayout) {
    const { size, buffer } = layout;
    this.words = new Int32Array(buffer, 0, HEADER_WORDS + RANK_WORDS * size + CHANNEL_WORDS * PLANES * size * size);
    this.bytes = new Uint8Array(buffer);
    this.dataStart = this.words.byteLength;
  }

  get size(): number {
    return this.layout.size;
  }

  doorbell(rank: number): number {
    return HEADER_WORDS + RANK_WORDS * rank;
  }

  /** Wakes a rank that may be waiting and records that something changed. */
  ring(rank: number): void {
    Atomics.add(this.words, PROGRESS, 1);
    Atomics.add(this.words, this.doorbell(rank), 1);
    Atomics.notify(this.words, this.doorbell(rank));
  }

  /** Records that `rank` has seen everything up to doorbell value `seen` and is about to wait for more. */
  looked(rank: number, seen: number): void {
    Atomics.store(this.words, this.doorbell(rank) + 3, seen);
  }

  /** Whether `rank` was rung since it last looked: it may be able to move as soon as it is scheduled. */
  wokenSinceLooked(rank: number): boolean {
    return Atomics.load(this.words, this.doorbell(rank)) !== Atomics.load(this.words, this.doorbell(rank) + 3);
  }

  progress(): number {
    return Atomics.load(this.words, PROGRESS);
  }

  setState(rank: number, state: StateName, peer = -1): void {
    Atomics.store(this.words, this.doorbell(rank) + 1, STATE[state]);
    Atomics.store(this.words, this.doorbell(rank) + 2, peer);
  }

  stateOf(rank: number): { state: StateName; peer: number } {
    return {
      state: STATE_NAMES[Atomics.load(this.words, this.doorbell(rank) + 1)] ?? 'starting',
      peer: Atomics.load(this.words, this.doorbell(rank) + 2),
    };
  }

  abort(): void {
    Atomics.store(this.words, ABORT, 1);
    for (let r = 0; r < this.size; r++) this.ring(r);
  }

  aborted(): boolean {
    return Atomics.load(this.words, ABORT) !== 0;
  }

  /** Word index of channel (plane, from → to). */
  channel(plane: number, from: number, to: number): number {
    return HEADER_WORDS + RANK_WORDS * this.size + CHANNEL_WORDS * ((plane * this.size + from) * this.size + to);
  }

  slot(plane: number, from: number, to: number): number {
    return this.dataStart + SLOT_BYTES * ((plane * this.size + from) * this.size + to);
  }

  full(channel: number): boolean {
    return Atomics.load(this.words, channel) !== 0;
  }

  /** Fills an empty slot; the caller has checked it is empty. */
  put(plane: number, from: number, to: number, chunk: Uint8Array, tag: number, total: number): void {
    const channel = this.channel(plane, from, to);
    this.bytes.set(chunk, this.slot(plane, from, to));
    this.words[channel + 1] = chunk.length;
    this.words[channel + 2] = tag;
    this.words[channel + 3] = total;
    Atomics.store(this.words, channel, 1);
    this.ring(to);
  }

  /** Empties a full slot into `into` at `offset`; returns what its header said. */
  take(plane: number, from: number, to: number): { chunk: Uint8Array; tag: number; total: number } {
    const channel = this.channel(plane, from, to);
    const length = this.words[channel + 1]!;
    const start = this.slot(plane, from, to);
    const chunk = this.bytes.slice(start, start + length);
    const header = { chunk, tag: this.words[channel + 2]!, total: this.words[channel + 3]! };
    Atomics.store(this.words, channel, 0);
    this.ring(from);
    return header;
  }

  /** Every rank's state, for messages: `rank 0 in recv from 1, rank 1 done`. */
  describeStates(): string {
    const parts: string[] = [];
    for (let r = 0; r < this.size; r++) {
      const { state, peer } = this.stateOf(r);
      const from =
        state === 'recv' || state === 'sendrecv' || state === 'wait' || state === 'probe'
          ? ` from ${peer < 0 ? 'any rank' : peer}`
          : state === 'send'
            ? ` to ${peer}`
            : peer >= 0 && !idle(state)
              ? ` waiting for ${peer}`
              : '';
      parts.push(`rank ${r} ${idle(state) ? state : `in ${state}`}${from}`);
    }
    return parts.join(', ');
  }
}

/** States that are not a communication call (shown as they are, not as `in ...`). */
function idle(state: StateName): boolean {
  return state === 'starting' || state === 'running' || state === 'done';
}
