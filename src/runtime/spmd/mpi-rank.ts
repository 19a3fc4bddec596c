// One rank's MPI (native/include/mpi.h) over its mailbox: communicators, eager point-to-point
// (a send is queued at once, so Isend and Send never wait, whatever the size), requests matched
// in the order posted, probes, and the collectives, built linearly from messages on each
// communicator's own collective context and combined in rank order (the same bits however
// threads are scheduled). Blocking waits go through the communicator's deadlock check. Arguments
// are program pointers; statuses are four i32 (source, tag, error, bytes).
import { CommunicationError, type Communicator } from './communicator.js';
import { combine, Datatypes, type TypeLayout } from './datatypes.js';
import { ANY_SOURCE, ANY_TAG, Mailbox, type Envelope } from './mailbox.js';
import type { StateName } from './shared-state.js';

/** Reads and writes the program's memory (pointers as the program passes them). */
export interface ProgramMemory {
  view(pointer: number, bytes: number): Uint8Array;
}

export const COMM_WORLD = 0;
export const COMM_SELF = 1;
export const COMM_NULL = -1;
export const REQUEST_NULL = 0;
export const UNDEFINED = -32766;
/** The rank that is no rank: sends to it vanish, receives from it complete at once and empty. */
export const PROC_NULL = -3;
export const IN_PLACE = 1;
const STATUS_BYTES = 16;

interface Comm {
  context: string;
  /** World ranks, by rank in this communicator. */
  members: number[];
  rank: number;
  /** Communicators created from this one so far (every member counts alike, so they agree on contexts). */
  created: number;
}

interface Status {
  source: number;
  tag: number;
  bytes: number;
}

type Request =
  | { kind: 'complete'; status: Status } // complete when made: sends (buffered at once) and receives from MPI_PROC_NULL
  | {
      kind: 'recv';
      comm: Comm;
      source: number;
      tag: number;
      pointer: number;
      count: number;
      type: TypeLayout;
      status: Status | null;
      freed: boolean;
    };

const EMPTY_STATUS: Status = { source: ANY_SOURCE, tag: ANY_TAG, bytes: 0 };
const PROC_NULL_STATUS: Status = { source: PROC_NULL, tag: ANY_TAG, bytes: 0 };

/** Collective operations, numbered as the tags of their messages (a rank in another collective is named). */
const COLLECTIVES = [
  'barrier',
  'bcast',
  'reduce',
  'allreduce',
  'gather',
  'allgather',
  'scatter',
  'alltoall',
  'scan',
  'exscan',
  'comm_split',
] as const;
type Collective = (typeof COLLECTIVES)[number];

export class MpiRank {
  readonly types = new Datatypes();
  private readonly mailbox: Mailbox;
  private readonly comms = new Map<number, Comm>();
  private nextComm = 2;
  private readonly requests = new Map<number, Request>();
  /** Receive requests not yet matched, in the order posted. */
  private readonly pending: number[] = [];
  private nextRequest = 1;

  constructor(
    private readonly comm: Communicator,
    private readonly memory: ProgramMemory,
    mailboxPrefix: string,
  ) {
    this.mailbox = new Mailbox(mailboxPrefix, comm.rank, comm.size);
    this.comms.set(COMM_WORLD, {
      context: 'w',
      members: Array.from({ length: comm.size }, (_, r) => r),
      rank: comm.rank,
      created: 0,
    });
    this.comms.set(COMM_SELF, { context: `s${comm.rank}`, members: [comm.rank], rank: 0, created: 0 });
  }

  close(): void {
    this.mailbox.close();
  }

  commSize(handle: number): number {
    return this.communicator(handle).members.length;
  }

  commRank(handle: number): number {
    return this.communicator(handle).rank;
  }

  abort(handle: number, code: number): never {
    this.comm.abortAll();
    throw new CommunicationError(
      `MPI_Abort(${handle === COMM_WORLD ? 'MPI_COMM_WORLD' : `communicator ${handle}`}, ${code}) called`,
    );
  }

  // ---- point to point ----

  /** Queues a message (MPI_Send and MPI_Isend alike: the data is copied out at once). Returns its bytes. */
  send(pointer: number, count: number, type: number, dest: number, tag: number, handle: number): number {
    const comm = this.communicator(handle);
    if (dest === PROC_NULL) return 0;
    const data = this.pack(pointer, count, this.types.layout(type));
    this.mailbox.post(this.peer(comm, dest, 'send'), { context: comm.context, source: this.comm.rank, tag, data });
    if (comm.members[dest] !== this.comm.rank) this.comm.wake(comm.members[dest]!);
    return data.length;
  }

  isend(
    pointer: number,
    count: number,
    type: number,
    dest: number,
    tag: number,
    handle: number,
    requestPointer: number,
  ): number {
    const bytes = this.send(pointer, count, type, dest, tag, handle);
    this.writeI32(requestPointer, this.storeRequest({ kind: 'complete', status: { source: dest, tag, bytes } }));
    return bytes;
  }

  irecv(
    pointer: number,
    count: number,
    type: number,
    source: number,
    tag: number,
    handle: number,
    requestPointer: number,
  ): void {
    const id = this.postReceive(pointer, count, type, source, tag, handle);
    this.writeI32(requestPointer, id ?? this.storeRequest({ kind: 'complete', status: PROC_NULL_STATUS }));
  }

  /** MPI_Recv: a receive request waited for at once (the deadlock check names it `recv`). Returns the bytes received. */
  recv(
    pointer: number,
    count: number,
    type: number,
    source: number,
    tag: number,
    handle: number,
    statusPointer: number,
  ): number {
    const id = this.postReceive(pointer, count, type, source, tag, handle);
    if (id === null) {
      this.writeStatus(statusPointer, PROC_NULL_STATUS);
      return 0;
    }
    this.block(() => this.complete(id), 'recv', [id]);
    const request = this.requests.get(id);
    this.requests.delete(id);
    const status = request?.kind === 'recv' && request.status !== null ? request.status : EMPTY_STATUS;
    this.writeStatus(statusPointer, status);
    return status.bytes;
  }

  sendrecvReplace(
    pointer: number,
    count: number,
    type: number,
    dest: number,
    sendTag: number,
    source: number,
    recvTag: number,
    handle: number,
    statusPointer: number,
  ): number {
    const sent = this.send(pointer, count, type, dest, sendTag, handle);
    return sent + this.recv(pointer, count, type, source, recvTag, handle, statusPointer);
  }

  wait(requestPointer: number, statusPointer: number): number {
    return this.waitAll(1, requestPointer, statusPointer);
  }

  /** MPI_Wait(all): returns the bytes the completed receives brought. */
  waitAll(count: number, requestsPointer: number, statusesPointer: number): number {
    const ids = this.requestIds(count, requestsPointer);
    this.block(() => ids.every((id) => id === REQUEST_NULL || this.complete(id)), 'wait', ids);
    return sum(ids.map((_, i) => this.finish(requestsPointer, statusesPointer, i, i)));
  }

  /** MPI_Waitany (any: true) and MPI_Waitsome; returns the indices completed, or null when no request is active. */
  waitSome(count: number, requestsPointer: number, any: boolean): number[] | null {
    const ids = this.requestIds(count, requestsPointer);
    if (ids.every((id) => id === REQUEST_NULL)) return null;
    let done: number[] = [];
    this.block(() => (done = this.completed(ids)).length > 0, 'wait', ids);
    return any ? done.slice(0, 1) : done;
  }

  /** MPI_Test/Testall: completes every request when all are complete; returns the bytes received then, or null when not all were. */
  testAll(count: number, requestsPointer: number, statusesPointer: number): number | null {
    const ids = this.requestIds(count, requestsPointer);
    this.progress();
    if (!ids.every((id) => id === REQUEST_NULL || this.complete(id))) return null;
    return sum(ids.map((_, i) => this.finish(requestsPointer, statusesPointer, i, i)));
  }

  /** MPI_Testany and MPI_Testsome: the indices of active requests complete now (none active: null). */
  testSome(count: number, requestsPointer: number, any: boolean): number[] | null {
    const ids = this.requestIds(count, requestsPointer);
    if (ids.every((id) => id === REQUEST_NULL)) return null;
    this.progress();
    const done = this.completed(ids);
    return any ? done.slice(0, 1) : done;
  }

  /**
   * Completes request `index` of the array: writes its status at `statusIndex` and sets its handle
   * to MPI_REQUEST_NULL. Returns the bytes it received (a send's were counted when sent).
   */
  finish(requestsPointer: number, statusesPointer: number, index: number, statusIndex: number): number {
    const slot = requestsPointer + 4 * index;
    const id = this.readI32(slot);
    const request = this.requests.get(id);
    const status =
      request === undefined ? EMPTY_STATUS : request.kind === 'complete' ? request.status : request.status!;
    this.requests.delete(id);
    if (id !== REQUEST_NULL) this.writeI32(slot, REQUEST_NULL);
    if (statusesPointer !== 0) this.writeStatus(statusesPointer + STATUS_BYTES * statusIndex, status);
    return request?.kind === 'recv' ? status.bytes : 0;
  }

  requestFree(requestPointer: number): void {
    const id = this.readI32(requestPointer);
    const request = this.requests.get(id);
    if (!request) throw new CommunicationError(`MPI_Request_free of request ${id}, which is not active`);
    if (request.kind === 'recv' && request.status === null) request.freed = true;
    else this.requests.delete(id);
    this.writeI32(requestPointer, REQUEST_NULL);
  }

  /** MPI_Probe (blocking) and MPI_Iprobe: the next matching message's status, left in the mailbox. */
  probe(source: number, tag: number, handle: number, statusPointer: number, blocking: boolean): boolean {
    const comm = this.communicator(handle);
    if (source === PROC_NULL) {
      this.writeStatus(statusPointer, PROC_NULL_STATUS);
      return true;
    }
    const matches = this.matcher(comm, source, tag);
    let found: Envelope | undefined;
    const ready = () => (found = this.mailbox.peek(matches)) !== undefined;
    if (blocking) this.comm.waitFor(ready, 'probe', source === ANY_SOURCE ? -1 : (comm.members[source] ?? -1));
    else ready();
    this.comm.running();
    if (found) this.writeStatus(statusPointer, this.statusOf(comm, found));
    return found !== undefined;
  }

  // ---- collectives ----

  barrier(handle: number): void {
    const comm = this.communicator(handle);
    this.gatherParts(comm, 0, new Uint8Array(0), 'barrier');
    this.broadcast(comm, 0, new Uint8Array(0), 'barrier');
  }

  bcast(pointer: number, count: number, type: number, root: number, handle: number): number {
    const comm = this.communicator(handle);
    this.peer(comm, root, 'bcast');
    const layout = this.types.layout(type);
    const data = this.broadcast(comm, root, comm.rank === root ? this.pack(pointer, count, layout) : null, 'bcast');
    if (comm.rank !== root) this.unpack(data, pointer, count, layout, 'bcast');
    return data.length;
  }

  /** MPI_Reduce (root >= 0) and MPI_Allreduce (root < 0). */
  reduce(
    input: number,
    output: number,
    count: number,
    type: number,
    operator: number,
    root: number,
    handle: number,
  ): number {
    const comm = this.communicator(handle);
    const all = root < 0;
    const at = all ? 0 : root;
    this.peer(comm, at, 'reduce');
    const layout = this.types.layout(type);
    const inPlace = input === IN_PLACE;
    const mine = this.pack(inPlace ? output : input, count, layout);
    const state: Collective = all ? 'allreduce' : 'reduce';
    const parts = this.gatherParts(comm, at, mine, state);
    let result: Uint8Array | null = null;
    if (parts) {
      result = parts[0]!.slice();
      for (let r = 1; r < parts.length; r++)
        combine(result, parts[r]!, this.elements(count, layout), layout.base, operator);
    }
    if (all) result = this.broadcast(comm, 0, result, state);
    if (result) this.unpack(result, output, count, layout, state);
    return mine.length;
  }

  /** MPI_Scan (inclusive) and MPI_Exscan (exclusive: rank 0's output is left as it is). */
  scan(
    input: number,
    output: number,
    count: number,
    type: number,
    operator: number,
    handle: number,
    exclusive: boolean,
  ): number {
    const comm = this.communicator(handle);
    const layout = this.types.layout(type);
    const mine = this.pack(input === IN_PLACE ? output : input, count, layout);
    const state: Collective = exclusive ? 'exscan' : 'scan';
    const parts = this.gatherParts(comm, 0, mine, state);
    const prefixes = parts?.map((_, r) => {
      const upTo = exclusive ? r - 1 : r;
      if (upTo < 0) return new Uint8Array(0);
      const sum = parts[0]!.slice();
      for (let k = 1; k <= upTo; k++) combine(sum, parts[k]!, this.elements(count, layout), layout.base, operator);
      return sum;
    });
    const result = this.scatterParts(comm, 0, prefixes ?? null, state);
    if (result.length > 0) this.unpack(result, output, count, layout, state);
    return mine.length;
  }

  /** MPI_Gather(v) (root >= 0) and MPI_Allgather(v) (root < 0); `counts`/`displacements` pointers are 0 for the plain forms. */
  gather(
    send: number,
    sendCount: number,
    sendType: number,
    recv: number,
    recvCount: number,
    counts: number,
    displacements: number,
    recvType: number,
    root: number,
    handle: number,
  ): number {
    const comm = this.communicator(handle);
    const all = root < 0;
    const at = all ? 0 : root;
    this.peer(comm, at, 'gather');
    const state: Collective = all ? 'allgather' : 'gather';
    const layout = this.types.layout(recvType);
    const size = comm.members.length;
    const mine =
      send === IN_PLACE
        ? this.pack(
            recv + this.displacement(comm.rank, recvCount, displacements) * layout.extent,
            this.countOf(comm.rank, recvCount, counts),
            layout,
          )
        : this.pack(send, sendCount, this.types.layout(sendType));
    let parts = this.gatherParts(comm, at, mine, state);
    if (all) parts = decodeParts(this.broadcast(comm, 0, parts ? encodeParts(parts) : null, state));
    if (parts) {
      for (let r = 0; r < size; r++) {
        this.unpack(
          parts[r]!,
          recv + this.displacement(r, recvCount, displacements) * layout.extent,
          this.countOf(r, recvCount, counts),
          layout,
          state,
        );
      }
    }
    return mine.length;
  }

  /** MPI_Scatter(v): `counts`/`displacements` pointers are 0 for the plain form. */
  scatter(
    send: number,
    sendCount: number,
    counts: number,
    displacements: number,
    sendType: number,
    recv: number,
    recvCount: number,
    recvType: number,
    root: number,
    handle: number,
  ): number {
    const comm = this.communicator(handle);
    this.peer(comm, root, 'scatter');
    let parts: Uint8Array[] | null = null;
    if (comm.rank === root) {
      const layout = this.types.layout(sendType);
      parts = comm.members.map((_, r) =>
        this.pack(
          send + this.displacement(r, sendCount, displacements) * layout.extent,
          this.countOf(r, sendCount, counts),
          layout,
        ),
      );
    }
    const mine = this.scatterParts(comm, root, parts, 'scatter');
    if (!(comm.rank === root && recv === IN_PLACE))
      this.unpack(mine, recv, recvCount, this.types.layout(recvType), 'scatter');
    return mine.length;
  }

  /** MPI_Alltoall(v): the count/displacement pointers are 0 for the plain form. */
  alltoall(
    send: number,
    sendCount: number,
    sendCounts: number,
    sendDisplacements: number,
    sendType: number,
    recv: number,
    recvCount: number,
    recvCounts: number,
    recvDisplacements: number,
    recvType: number,
    handle: number,
  ): number {
    const comm = this.communicator(handle);
    const sendLayout = this.types.layout(sendType);
    const recvLayout = this.types.layout(recvType);
    const tag = COLLECTIVES.indexOf('alltoall');
    let bytes = 0;
    comm.members.forEach((world, r) => {
      const data = this.pack(
        send + this.displacement(r, sendCount, sendDisplacements) * sendLayout.extent,
        this.countOf(r, sendCount, sendCounts),
        sendLayout,
      );
      bytes += data.length;
      this.mailbox.post(world, { context: `${comm.context}#`, source: this.comm.rank, tag, data });
      if (world !== this.comm.rank) this.comm.wake(world);
    });
    comm.members.forEach((_, r) => {
      const data = this.collectiveReceive(comm, r, 'alltoall');
      this.unpack(
        data,
        recv + this.displacement(r, recvCount, recvDisplacements) * recvLayout.extent,
        this.countOf(r, recvCount, recvCounts),
        recvLayout,
        'alltoall',
      );
    });
    return bytes;
  }

  commDup(handle: number): number {
    const comm = this.communicator(handle);
    return this.addComm({
      context: `${comm.context}/${++comm.created}`,
      members: comm.members.slice(),
      rank: comm.rank,
      created: 0,
    });
  }

  /** MPI_Comm_split: ranks with the same color, ordered by key then by their old rank (MPI_UNDEFINED: MPI_COMM_NULL). */
  commSplit(handle: number, color: number, key: number): number {
    const comm = this.communicator(handle);
    const mine = new Uint8Array(new Int32Array([color, key]).buffer);
    const gathered = this.gatherParts(comm, 0, mine, 'comm_split');
    const parts = decodeParts(this.broadcast(comm, 0, gathered ? encodeParts(gathered) : null, 'comm_split'));
    const sequence = ++comm.created;
    if (color === UNDEFINED) return COMM_NULL;
    const chosen = parts
      .map((part, r) => {
        const view = new DataView(part.buffer, part.byteOffset, part.byteLength);
        return { r, color: view.getInt32(0, true), key: view.getInt32(4, true) };
      })
      .filter((entry) => entry.color === color)
      .sort((a, b) => a.key - b.key || a.r - b.r);
    const members = chosen.map((entry) => comm.members[entry.r]!);
    return this.addComm({
      context: `${comm.context}/${sequence}:${color}`,
      members,
      rank: members.indexOf(this.comm.rank),
      created: 0,
    });
  }

  commFree(handle: number): void {
    if (handle === COMM_WORLD || handle === COMM_SELF)
      throw new CommunicationError('MPI_Comm_free of MPI_COMM_WORLD or MPI_COMM_SELF');
    if (!this.comms.delete(handle)) throw new CommunicationError(`MPI_Comm_free of unknown communicator ${handle}`);
  }

  // ---- internals ----

  private communicator(handle: number): Comm {
    const comm = this.comms.get(handle);
    if (!comm)
      throw new CommunicationError(
        `rank ${this.comm.rank}: ${handle === COMM_NULL ? 'MPI_COMM_NULL' : `unknown communicator ${handle}`} used in a communication call`,
      );
    return comm;
  }

  private addComm(comm: Comm): number {
    const handle = this.nextComm++;
    this.comms.set(handle, comm);
    return handle;
  }

  /** The world rank of `rank` in `comm`, checked. */
  private peer(comm: Comm, rank: number, call: string): number {
    const world = comm.members[rank];
    if (!Number.isInteger(rank) || world === undefined) {
      throw new CommunicationError(
        `rank ${this.comm.rank}: ${call} names rank ${rank}, but the communicator's ranks are 0..${comm.members.length - 1}`,
      );
    }
    return world;
  }

  /** Keeps `request` active under a new handle. */
  private storeRequest(request: Request): number {
    const id = this.nextRequest++;
    this.requests.set(id, request);
    return id;
  }

  /**
   * Posts a receive (MPI_Recv and MPI_Irecv alike): an active request matched in the order posted.
   * Returns its handle, or null for MPI_PROC_NULL (complete at once, empty).
   */
  private postReceive(
    pointer: number,
    count: number,
    type: number,
    source: number,
    tag: number,
    handle: number,
  ): number | null {
    const comm = this.communicator(handle);
    if (source === PROC_NULL) return null;
    if (source !== ANY_SOURCE) this.peer(comm, source, 'recv');
    const id = this.storeRequest({
      kind: 'recv',
      comm,
      source,
      tag,
      pointer,
      count,
      type: this.types.layout(type),
      status: null,
      freed: false,
    });
    this.pending.push(id);
    return id;
  }

  private requestIds(count: number, pointer: number): number[] {
    const ids = Array.from({ length: count }, (_, i) => this.readI32(pointer + 4 * i));
    for (const id of ids)
      if (id !== REQUEST_NULL && !this.requests.has(id))
        throw new CommunicationError(`rank ${this.comm.rank}: request handle ${id} is not an active request`);
    return ids;
  }

  private complete(id: number): boolean {
    const request = this.requests.get(id);
    return request !== undefined && (request.kind === 'complete' || request.status !== null);
  }

  private completed(ids: number[]): number[] {
    this.progress();
    return ids.flatMap((id, i) => (id !== REQUEST_NULL && this.complete(id) ? [i] : []));
  }

  /** Matches posted receives, in the order posted, against the messages that have arrived. */
  private progress(): void {
    for (let i = 0; i < this.pending.length; i++) {
      const id = this.pending[i]!;
      const request = this.requests.get(id);
      if (!request || request.kind !== 'recv') continue;
      const found = this.mailbox.take(this.matcher(request.comm, request.source, request.tag));
      if (!found) continue;
      this.unpack(found.data, request.pointer, request.count, request.type, 'recv', found.source);
      request.status = this.statusOf(request.comm, found);
      if (request.freed) this.requests.delete(id);
      this.pending.splice(i--, 1);
    }
  }

  /** Waits until `ready`, progressing receives; the deadlock check names the first awaited peer. */
  private block(ready: () => boolean, state: StateName, ids: number[]): void {
    const awaited = ids.map((id) => this.requests.get(id)).find((r) => r?.kind === 'recv' && r.status === null);
    const peer =
      awaited?.kind === 'recv' ? (awaited.source === ANY_SOURCE ? -1 : awaited.comm.members[awaited.source]!) : -1;
    this.comm.waitFor(
      () => {
        this.progress();
        return ready();
      },
      state,
      peer,
    );
    this.comm.running();
  }

  private matcher(comm: Comm, source: number, tag: number): (envelope: Envelope) => boolean {
    const world = source === ANY_SOURCE ? ANY_SOURCE : comm.members[source];
    return (e) =>
      e.context === comm.context && (world === ANY_SOURCE || e.source === world) && (tag === ANY_TAG || e.tag === tag);
  }

  private statusOf(comm: Comm, envelope: Envelope): Status {
    return { source: comm.members.indexOf(envelope.source), tag: envelope.tag, bytes: envelope.data.length };
  }

  /** Root: every rank's part in rank order; the others: null. */
  private gatherParts(comm: Comm, root: number, mine: Uint8Array, state: Collective): Uint8Array[] | null {
    if (comm.rank !== root) {
      this.collectiveSend(comm, root, mine, state);
      return null;
    }
    return comm.members.map((_, r) => (r === root ? mine : this.collectiveReceive(comm, r, state)));
  }

  private scatterParts(comm: Comm, root: number, parts: Uint8Array[] | null, state: Collective): Uint8Array {
    if (comm.rank !== root) return this.collectiveReceive(comm, root, state);
    parts!.forEach((part, r) => {
      if (r !== root) this.collectiveSend(comm, r, part, state);
    });
    return parts![root]!;
  }

  private broadcast(comm: Comm, root: number, data: Uint8Array | null, state: Collective): Uint8Array {
    return this.scatterParts(comm, root, comm.rank === root ? comm.members.map(() => data!) : null, state);
  }

  private collectiveSend(comm: Comm, rank: number, data: Uint8Array, state: Collective): void {
    const world = comm.members[rank]!;
    this.mailbox.post(world, {
      context: `${comm.context}#`,
      source: this.comm.rank,
      tag: COLLECTIVES.indexOf(state),
      data,
    });
    this.comm.wake(world);
  }

  private collectiveReceive(comm: Comm, rank: number, state: Collective): Uint8Array {
    const world = comm.members[rank]!;
    const context = `${comm.context}#`;
    let found: Envelope | undefined;
    this.comm.waitFor(
      () => (found = this.mailbox.take((e) => e.context === context && e.source === world)) !== undefined,
      collectiveState(state),
      world,
    );
    this.comm.running();
    const envelope = found!;
    if (envelope.tag !== COLLECTIVES.indexOf(state)) {
      throw new CommunicationError(
        `rank ${this.comm.rank} called ${state} while rank ${world} called ${COLLECTIVES[envelope.tag] ?? 'another collective'}: every rank must call the same collectives in the same order`,
      );
    }
    return envelope.data;
  }

  private countOf(rank: number, count: number, counts: number): number {
    return counts === 0 ? count : this.readI32(counts + 4 * rank);
  }

  private displacement(rank: number, count: number, displacements: number): number {
    return displacements === 0 ? rank * count : this.readI32(displacements + 4 * rank);
  }

  private elements(count: number, layout: TypeLayout): number {
    return (count * layout.size) / this.types.layout(layout.base).size;
  }

  private pack(pointer: number, count: number, layout: TypeLayout): Uint8Array {
    if (count < 0) throw new CommunicationError(`rank ${this.comm.rank}: negative count ${count}`);
    if (layout.extent === layout.size && layout.segments.length === 1)
      return this.memory.view(pointer, count * layout.size).slice();
    const data = new Uint8Array(count * layout.size);
    let at = 0;
    for (let element = 0; element < count; element++) {
      for (const [offset, length] of layout.segments) {
        data.set(this.memory.view(pointer + element * layout.extent + offset, length), at);
        at += length;
      }
    }
    return data;
  }

  private unpack(
    data: Uint8Array,
    pointer: number,
    count: number,
    layout: TypeLayout,
    call: string,
    source = -1,
  ): void {
    if (data.length > count * layout.size) {
      const from = source >= 0 ? ` from rank ${source}` : '';
      throw new CommunicationError(
        `rank ${this.comm.rank}: the ${data.length}-byte message${from} does not fit the ${count * layout.size}-byte ${call} buffer (${count} × ${layout.name})`,
      );
    }
    if (layout.extent === layout.size && layout.segments.length === 1) {
      this.memory.view(pointer, data.length).set(data);
      return;
    }
    let at = 0;
    for (let element = 0; at < data.length; element++) {
      for (const [offset, length] of layout.segments) {
        if (at >= data.length) break;
        const chunk = data.subarray(at, at + length);
        this.memory.view(pointer + element * layout.extent + offset, chunk.length).set(chunk);
        at += length;
      }
    }
  }

  private writeStatus(pointer: number, status: Status): void {
    if (pointer === 0) return;
    const bytes = this.memory.view(pointer, STATUS_BYTES);
    const view = new DataView(bytes.buffer, bytes.byteOffset, STATUS_BYTES);
    view.setInt32(0, status.source, true);
    view.setInt32(4, status.tag, true);
    view.setInt32(8, 0, true);
    view.setInt32(12, status.bytes, true);
  }

  readI32(pointer: number): number {
    const bytes = this.memory.view(pointer, 4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
  }

  writeI32(pointer: number, value: number): void {
    const bytes = this.memory.view(pointer, 4);
    new DataView(bytes.buffer, bytes.byteOffset, 4).setInt32(0, value, true);
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function collectiveState(state: Collective): StateName {
  return state === 'exscan' ? 'scan' : state;
}

/** Several byte arrays as one: their count, their lengths, then their bytes. */
function encodeParts(parts: Uint8Array[]): Uint8Array {
  const header = new Int32Array([parts.length, ...parts.map((p) => p.length)]);
  const out = new Uint8Array(header.byteLength + parts.reduce((n, p) => n + p.length, 0));
  out.set(new Uint8Array(header.buffer));
  let at = header.byteLength;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function decodeParts(data: Uint8Array): Uint8Array[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getInt32(0, true);
  let at = 4 * (count + 1);
  return Array.from({ length: count }, (_, i) => {
    const length = view.getInt32(4 * (i + 1), true);
    const part = data.subarray(at, at + length);
    at += length;
    return part;
  });
}
