// One rank's message passing over the shared state: point-to-point messages (FIFO per pair of
// ranks, tags checked), collectives built from messages on their own plane (so they never mix with
// user messages), and the deadlock check. A rank only ever waits on its own doorbell; whoever
// changes a channel rings the other end. When every rank is blocked or done, none was rung since it
// last looked, and nothing moved for two checks in a row, no rank can ever move again: a deadlock.
import {
  COLLECTIVE_PLANE,
  SharedState,
  SLOT_BYTES,
  USER_PLANE,
  type SharedLayout,
  type StateName,
} from './shared-state.js';

/** A failure of the communication itself (deadlock, mismatched calls, bad arguments): ends the run. */
export class CommunicationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommunicationError';
  }
}

/** Another rank failed and the run is being stopped: this rank just gets out of the way. */
export class CommunicationAborted extends Error {}

export const ANY_TAG = -1;
const CHECK_MS = 50;

/** Reduction element types and operators, as numbered in the C and AssemblyScript headers. */
export const DATATYPES = ['i32', 'i64', 'f32', 'f64'] as const;
export const OPERATORS = ['sum', 'max', 'min', 'prod'] as const;
const ELEMENT_BYTES = [4, 8, 4, 8];

/** Collective tags: a rank in a different collective than its peer gets a clear error. */
const COLLECTIVE_TAGS: Partial<Record<StateName, number>> = { barrier: 1, bcast: 2, reduce: 3, allreduce: 4 };

export class Communicator {
  private readonly shared: SharedState;
  private lastProgress = -1;
  private stableChecks = 0;

  constructor(
    layout: SharedLayout,
    readonly rank: number,
  ) {
    this.shared = new SharedState(layout);
  }

  get size(): number {
    return this.shared.size;
  }

  /** Every rank starts its export together (a barrier outside the timed call), so first-call waits show the program's own skew, not thread start-up. */
  start(): void {
    this.shared.setState(this.rank, 'running');
    this.barrier();
  }

  finish(): void {
    this.shared.setState(this.rank, 'done');
    for (let r = 0; r < this.size; r++) this.shared.ring(r);
  }

  send(data: Uint8Array, dest: number, tag: number, plane = USER_PLANE, state: StateName = 'send'): void {
    this.checkPeer(dest, state);
    const channel = this.shared.channel(plane, this.rank, dest);
    let offset = 0;
    do {
      this.waitFor(() => !this.shared.full(channel), state, dest);
      const chunk = data.subarray(offset, offset + SLOT_BYTES);
      this.shared.put(plane, this.rank, dest, chunk, tag, data.length);
      offset += chunk.length;
    } while (offset < data.length);
    this.shared.setState(this.rank, 'running');
  }

  /** Receives one message into `into`; returns its length. */
  recv(into: Uint8Array, source: number, tag: number, plane = USER_PLANE, state: StateName = 'recv'): number {
    this.checkPeer(source, state);
    const channel = this.shared.channel(plane, source, this.rank);
    let offset = 0;
    let total = 0;
    do {
      this.waitFor(() => this.shared.full(channel), state, source);
      const header = this.shared.take(plane, source, this.rank);
      if (offset === 0) {
        total = header.total;
        this.checkMessage(header.tag, tag, total, into.length, source, plane, state);
      }
      into.set(header.chunk, offset);
      offset += header.chunk.length;
    } while (offset < total);
    this.shared.setState(this.rank, 'running');
    return total;
  }

  /** Sends and receives at once, chunk by chunk, so two ranks exchanging large messages never wait on each other. */
  sendrecv(data: Uint8Array, dest: number, sendTag: number, into: Uint8Array, source: number, tag: number): number {
    this.checkPeer(dest, 'sendrecv');
    this.checkPeer(source, 'sendrecv');
    const out = this.shared.channel(USER_PLANE, this.rank, dest);
    const inbound = this.shared.channel(USER_PLANE, source, this.rank);
    let sent = 0;
    let sentAll = false;
    let received = 0;
    let total = -1;
    while (!sentAll || total < 0 || received < total) {
      let moved = false;
      if (!sentAll && !this.shared.full(out)) {
        const chunk = data.subarray(sent, sent + SLOT_BYTES);
        this.shared.put(USER_PLANE, this.rank, dest, chunk, sendTag, data.length);
        sent += chunk.length;
        sentAll = sent >= data.length;
        moved = true;
      }
      if ((total < 0 || received < total) && this.shared.full(inbound)) {
        const header = this.shared.take(USER_PLANE, source, this.rank);
        if (total < 0) {
          total = header.total;
          this.checkMessage(header.tag, tag, total, into.length, source, USER_PLANE, 'sendrecv');
        }
        into.set(header.chunk, received);
        received += header.chunk.length;
        moved = true;
      }
      if (!moved)
        this.waitFor(
          () => (!sentAll && !this.shared.full(out)) || ((total < 0 || received < total) && this.shared.full(inbound)),
          'sendrecv',
          source,
        );
    }
    this.shared.setState(this.rank, 'running');
    return total;
  }

  bcast(data: Uint8Array, root: number, state: StateName = 'bcast'): void {
    this.checkPeer(root, state);
    const tag = COLLECTIVE_TAGS[state]!;
    if (this.rank === root) {
      for (let r = 0; r < this.size; r++) if (r !== root) this.send(data, r, tag, COLLECTIVE_PLANE, state);
    } else {
      this.recv(data, root, tag, COLLECTIVE_PLANE, state);
    }
  }

  /** Combines every rank's `input` at `root`, in rank order (the same result however threads are scheduled). */
  reduce(
    input: Uint8Array,
    output: Uint8Array | null,
    count: number,
    datatype: number,
    operator: number,
    root: number,
    state: StateName = 'reduce',
  ): void {
    this.checkPeer(root, state);
    const tag = COLLECTIVE_TAGS[state]!;
    if (this.rank !== root) {
      this.send(input, root, tag, COLLECTIVE_PLANE, state);
      return;
    }
    const combine = combiner(datatype, operator, count);
    const parts: Uint8Array[] = [];
    for (let r = 0; r < this.size; r++) {
      if (r === root) {
        parts.push(input.slice());
        continue;
      }
      const part = new Uint8Array(input.length);
      this.recv(part, r, tag, COLLECTIVE_PLANE, state);
      parts.push(part);
    }
    const result = parts[0]!;
    for (let r = 1; r < parts.length; r++) combine(result, parts[r]!);
    output?.set(result);
  }

  allreduce(input: Uint8Array, output: Uint8Array, count: number, datatype: number, operator: number): void {
    this.reduce(input, output, count, datatype, operator, 0, 'allreduce');
    this.bcast(output, 0, 'allreduce');
  }

  barrier(): void {
    const empty = new Uint8Array(0);
    this.reduce(empty, null, 0, 0, 0, 0, 'barrier');
    this.bcast(empty, 0, 'barrier');
  }

  /** Tells a rank that something it may wait for changed (and counts as progress for the deadlock check). */
  wake(rank: number): void {
    this.shared.ring(rank);
  }

  running(): void {
    this.shared.setState(this.rank, 'running');
  }

  /** Ends the run from this rank (MPI_Abort): the others stop waiting and get out. */
  abortAll(): void {
    this.shared.abort();
  }

  private checkPeer(peer: number, state: StateName): void {
    if (!Number.isInteger(peer) || peer < 0 || peer >= this.size) {
      throw new CommunicationError(`rank ${this.rank}: ${state} names rank ${peer}, but ranks are 0..${this.size - 1}`);
    }
  }

  private checkMessage(
    tag: number,
    expected: number,
    total: number,
    room: number,
    source: number,
    plane: number,
    state: StateName,
  ): void {
    if (plane === COLLECTIVE_PLANE && tag !== expected) {
      const other = Object.entries(COLLECTIVE_TAGS).find(([, t]) => t === tag)?.[0] ?? 'another collective';
      throw new CommunicationError(
        `rank ${this.rank} called ${state} while rank ${source} called ${other}: every rank must call the same collectives in the same order`,
      );
    }
    if (plane === USER_PLANE && expected !== ANY_TAG && tag !== expected) {
      throw new CommunicationError(
        `rank ${this.rank} expected a message with tag ${expected} from rank ${source}, the next one has tag ${tag} (messages between two ranks arrive in the order sent)`,
      );
    }
    if (total > room) {
      throw new CommunicationError(
        `rank ${this.rank}: the ${total}-byte message from rank ${source} does not fit the ${room}-byte ${state} buffer`,
      );
    }
  }

  /** Waits until `ready()`, shown as blocked in `state` on `peer`; fails on a deadlock, gets out when the run is aborted. */
  waitFor(ready: () => boolean, state: StateName, peer: number): void {
    const words = this.shared.words;
    const bell = this.shared.doorbell(this.rank);
    let marked = false;
    for (;;) {
      const seen = Atomics.load(words, bell);
      this.shared.looked(this.rank, seen);
      if (ready()) return;
      if (this.shared.aborted()) throw new CommunicationAborted('aborted');
      if (!marked) {
        this.shared.setState(this.rank, state, peer);
        marked = true;
      }
      if (Atomics.wait(words, bell, seen, CHECK_MS) === 'timed-out') this.checkDeadlock();
      else this.stableChecks = 0;
    }
  }

  private checkDeadlock(): void {
    const progress = this.shared.progress();
    let anyoneRunning = false;
    for (let r = 0; r < this.size; r++) {
      const { state } = this.shared.stateOf(r);
      // A rank rung since it last looked may be waiting only for a core (a loaded machine can take
      // longer than two checks to schedule it): not blocked.
      if (state === 'running' || state === 'starting' || (state !== 'done' && this.shared.wokenSinceLooked(r)))
        anyoneRunning = true;
    }
    if (anyoneRunning || progress !== this.lastProgress) {
      this.lastProgress = progress;
      this.stableChecks = 0;
      return;
    }
    if (++this.stableChecks < 2) return;
    const states = this.shared.describeStates();
    this.shared.abort();
    throw new CommunicationError(`deadlock: every rank is blocked or done (${states})`);
  }
}

function combiner(datatype: number, operator: number, count: number): (into: Uint8Array, from: Uint8Array) => void {
  const type = DATATYPES[datatype];
  const op = OPERATORS[operator];
  if (!type) throw new CommunicationError(`unknown reduction datatype ${datatype} (0 i32, 1 i64, 2 f32, 3 f64)`);
  if (!op) throw new CommunicationError(`unknown reduction operator ${operator} (0 sum, 1 max, 2 min, 3 prod)`);
  return (into, from) => {
    const a = new DataView(into.buffer, into.byteOffset, count * ELEMENT_BYTES[datatype]!);
    const b = new DataView(from.buffer, from.byteOffset, count * ELEMENT_BYTES[datatype]!);
    for (let i = 0; i < count; i++) {
      if (type === 'i64') {
        const x = a.getBigInt64(i * 8, true);
        const y = b.getBigInt64(i * 8, true);
        const z = op === 'sum' ? x + y : op === 'prod' ? x * y : op === 'max' ? (x > y ? x : y) : x < y ? x : y;
        a.setBigInt64(i * 8, BigInt.asIntN(64, z), true);
        continue;
      }
      const get =
        type === 'i32'
          ? (v: DataView, k: number) => v.getInt32(k * 4, true)
          : type === 'f32'
            ? (v: DataView, k: number) => v.getFloat32(k * 4, true)
            : (v: DataView, k: number) => v.getFloat64(k * 8, true);
      const x = get(a, i);
      const y = get(b, i);
      let z =
        op === 'sum'
          ? x + y
          : op === 'prod'
            ? type === 'i32'
              ? Math.imul(x, y)
              : x * y
            : op === 'max'
              ? Math.max(x, y)
              : Math.min(x, y);
      if (type === 'i32') a.setInt32(i * 4, z | 0, true);
      else if (type === 'f32') a.setFloat32(i * 4, (z = Math.fround(z)), true);
      else a.setFloat64(i * 8, z, true);
    }
  };
}

export function elementBytes(datatype: number): number {
  const bytes = ELEMENT_BYTES[datatype];
  if (bytes === undefined)
    throw new CommunicationError(`unknown reduction datatype ${datatype} (0 i32, 1 i64, 2 f32, 3 f64)`);
  return bytes;
}
