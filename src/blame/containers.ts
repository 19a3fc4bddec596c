// Mem-containers (Rutar & Hollingsworth §2.3): contiguous memory a program variable stands for,
// alive from allocation to deallocation. Heap containers come from the allocation log (allocator
// calls and memory.grow outside them) replayed up to each sample; an address outside every live
// heap container is on the shadow stack (between the sampled stack pointer and the stack's top) or
// in static data. The newest container holding an address wins, so a missed free cannot shadow
// memory reused later.
import type { AllocationEvent, Frame } from './sample-run.js';

export interface HeapContainer {
  kind: 'heap';
  id: number;
  address: number;
  bytes: number;
  /** Call path of the allocation: the allocator's frame last (memory.grow: the growing function's). */
  path: Frame[];
  allocator: string;
  growSite: number | null;
  live: boolean;
}

export type Container = HeapContainer | { kind: 'stack'; address: number } | { kind: 'static'; address: number };

export class ContainerTimeline {
  private applied = 0;
  private readonly live: HeapContainer[] = [];
  readonly all: HeapContainer[] = [];

  constructor(
    private readonly events: AllocationEvent[],
    private readonly allocatorName: (frame: Frame | undefined) => string,
    private readonly stackTop: number | null,
  ) {}

  /** Containers live after the first `count` allocation events. */
  advanceTo(count: number): void {
    for (; this.applied < Math.min(count, this.events.length); this.applied++) this.apply(this.events[this.applied]!);
  }

  find(address: number, stackPointer: number): Container {
    for (let i = this.live.length - 1; i >= 0; i--) {
      const c = this.live[i]!;
      if (address >= c.address && address < c.address + c.bytes) return c;
    }
    if (this.stackTop !== null && address >= stackPointer && address < this.stackTop) return { kind: 'stack', address };
    return { kind: 'static', address };
  }

  private apply(event: AllocationEvent): void {
    if (event.kind === 'free' || event.kind === 'realloc') {
      const index = this.live.findIndex((c) => c.address === event.old);
      if (index >= 0) {
        const [freed] = this.live.splice(index, 1);
        freed!.live = false;
        if (event.kind === 'realloc' && event.address !== 0) {
          // A resized block stays the same container (the same variable owns it).
          const moved: HeapContainer = { ...freed!, address: event.address, bytes: event.bytes, live: true };
          this.all[freed!.id] = moved;
          this.live.push(moved);
          return;
        }
      }
      if (event.kind === 'free') return;
    }
    if (event.address === 0 || event.bytes === 0) return;
    const container: HeapContainer = {
      kind: 'heap',
      id: this.all.length,
      address: event.address,
      bytes: event.bytes,
      path: event.path,
      allocator: event.kind === 'grow' ? 'memory.grow' : this.allocatorName(event.path.at(-1)),
      growSite: event.growSite,
      live: true,
    };
    this.all.push(container);
    this.live.push(container);
  }
}
