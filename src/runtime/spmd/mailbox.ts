// One rank's mailbox for the MPI calls of an SPMD run: an unbounded FIFO per ordered pair of ranks,
// so a send never waits for its receiver, whatever the message size. The transport is one
// BroadcastChannel per ordered pair (only the sender and the receiver hold it); the receiver pulls
// messages synchronously (receiveMessageOnPort) while its module is running, so no event loop turn
// is needed. Messages pulled but not yet matched wait in arrival order (the "unexpected" list).
// Every channel is created before the start barrier, so none is missed.
import { BroadcastChannel, receiveMessageOnPort } from 'node:worker_threads';

/** One message: `context` keeps communicators (and their collectives) apart; ranks are world ranks. */
export interface Envelope {
  context: string;
  source: number;
  tag: number;
  data: Uint8Array;
}

// Node accepts a BroadcastChannel here (since 15.12); @types/node only declares MessagePort.
const receive = receiveMessageOnPort as unknown as (channel: BroadcastChannel) => { message: unknown } | undefined;

export const ANY_SOURCE = -2;
export const ANY_TAG = -1;

export class Mailbox {
  private readonly inbound: BroadcastChannel[] = [];
  private readonly outbound: BroadcastChannel[] = [];
  /** Messages received and not yet matched, in arrival order. */
  private readonly unexpected: Envelope[] = [];

  constructor(
    prefix: string,
    readonly rank: number,
    size: number,
  ) {
    for (let peer = 0; peer < size; peer++) {
      const inbound = new BroadcastChannel(`${prefix}:${peer}>${rank}`);
      const outbound = new BroadcastChannel(`${prefix}:${rank}>${peer}`);
      // Neither keeps the worker alive; messages are only ever pulled, never dispatched.
      inbound.unref();
      outbound.unref();
      this.inbound.push(inbound);
      this.outbound.push(outbound);
    }
  }

  /** Queues `envelope` for `dest` (returns at once; a message to oneself is queued locally). */
  post(dest: number, envelope: Envelope): void {
    if (dest === this.rank) this.unexpected.push(envelope);
    else this.outbound[dest]!.postMessage(envelope);
  }

  /** The first message (in arrival order) that `matches`, removed, or undefined. */
  take(matches: (envelope: Envelope) => boolean): Envelope | undefined {
    const index = this.find(matches);
    if (index < 0) return undefined;
    return this.unexpected.splice(index, 1)[0];
  }

  /** The first message that `matches`, left in place (MPI_Probe). */
  peek(matches: (envelope: Envelope) => boolean): Envelope | undefined {
    const index = this.find(matches);
    return index < 0 ? undefined : this.unexpected[index];
  }

  close(): void {
    for (const channel of [...this.inbound, ...this.outbound]) channel.close();
  }

  private find(matches: (envelope: Envelope) => boolean): number {
    this.pull();
    return this.unexpected.findIndex(matches);
  }

  /** Moves every message that has arrived into the unexpected list (per sender in the order sent). */
  private pull(): void {
    for (const channel of this.inbound) {
      for (let message = receive(channel); message; message = receive(channel)) {
        this.unexpected.push(message.message as Envelope);
      }
    }
  }
}
