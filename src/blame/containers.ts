// Mem-containers (Rutar & Hollingsworth §2.3): contiguous memory a program variable stands for,
// alive from allocation to deallocation. Heap containers come from the allocation log (allocator
// calls and memory.grow outside them) replayed up to each sample; an address outside every live
// heap container is on the shadow stack (between the sampled stack pointer and the stack's top) or
// in static data. The newest container holding an address wins, so a missed free cannot shadow
// memory reused later. Live containers are kept by address, so a lookup looks only near the address
// (yosys's allocation log keeps 65,536 events: a scan of every live container per sample is slow).
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

/** Containers this large are looked at on every find; smaller ones only near the address. */
const LARGE_BYTES = 1 << 20;

/** A live container and when it became live (the newest holding an address wins). */
interface LiveEntry {
  container: HeapContainer;
  order: number;
}

export class ContainerTimeline {
  private applied = 0;
  private order = 0;
  /** Live containers under LARGE_BYTES by address (equal addresses: oldest first). */
  private readonly small: LiveEntry[] = [];
  /** Live containers of LARGE_BYTES and more (memory.grow, big arrays), oldest first. */
  private readonly large: LiveEntry[] = [];
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
    // The newest live container holding the address: a small one starts less than LARGE_BYTES below it.
    let best: LiveEntry | null = null;
    for (let i = this.firstAbove(address) - 1; i >= 0; i--) {
      const entry = this.small[i]!;
      const c = entry.container;
      if (address - c.address >= LARGE_BYTES) break;
      if (address < c.address + c.bytes && (!best || entry.order > best.order)) best = entry;
    }
    for (const entry of this.large) {
      const c = entry.container;
      if (address >= c.address && address < c.address + c.bytes && (!best || entry.order > best.order)) best = entry;
    }
    if (best) return best.container;
    if (this.stackTop !== null && address >= stackPointer && address < this.stackTop) return { kind: 'stack', address };
    return { kind: 'static', address };
  }

  /** The first position in `small` whose container starts above the address. */
  private firstAbove(address: number): number {
    let low = 0;
    let high = this.small.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.small[mid]!.container.address <= address) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private add(container: HeapContainer): void {
    const entry = { container, order: this.order++ };
    if (container.bytes >= LARGE_BYTES) this.large.push(entry);
    else this.small.splice(this.firstAbove(container.address), 0, entry);
  }

  /** Takes the oldest live container at `address` out of the timeline; undefined when none. */
  private remove(address: number): HeapContainer | undefined {
    let oldest: { list: LiveEntry[]; at: number } | null = null;
    const consider = (list: LiveEntry[], at: number) => {
      if (!oldest || list[at]!.order < oldest.list[oldest.at]!.order) oldest = { list, at };
    };
    for (let i = this.firstAbove(address) - 1; i >= 0 && this.small[i]!.container.address === address; i--)
      consider(this.small, i);
    this.large.forEach((entry, i) => entry.container.address === address && consider(this.large, i));
    const found = oldest as { list: LiveEntry[]; at: number } | null;
    return found ? found.list.splice(found.at, 1)[0]!.container : undefined;
  }

  private apply(event: AllocationEvent): void {
    if (event.kind === 'free' || event.kind === 'realloc') {
      const freed = this.remove(event.old);
      if (freed) {
        freed.live = false;
        if (event.kind === 'realloc' && event.address !== 0) {
          // A resized block stays the same container (the same variable owns it).
          const moved: HeapContainer = { ...freed, address: event.address, bytes: event.bytes, live: true };
          this.all[freed.id] = moved;
          this.add(moved);
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
    this.add(container);
  }
}
