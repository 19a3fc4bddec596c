// The container timeline looks only near an address (live containers kept by address); it must find
// what a scan of every live container, newest first, finds: overlapping blocks (a free the log
// missed), reallocs that move a block, large blocks, the stack and static data.
import { expect, test } from 'vitest';
import { ContainerTimeline, type Container } from '../../src/blame/containers.js';
import type { AllocationEvent } from '../../src/blame/sample-run.js';

/** The timeline as a list scanned newest first (the rule the timeline keeps). */
function scanAll(events: AllocationEvent[], count: number, address: number, sp: number, top: number): string {
  const live: Array<{ id: number; address: number; bytes: number }> = [];
  let ids = 0;
  for (const event of events.slice(0, count)) {
    if (event.kind === 'free' || event.kind === 'realloc') {
      const index = live.findIndex((c) => c.address === event.old);
      if (index >= 0) {
        const [freed] = live.splice(index, 1);
        if (event.kind === 'realloc' && event.address !== 0) {
          live.push({ id: freed!.id, address: event.address, bytes: event.bytes });
          continue;
        }
      }
      if (event.kind === 'free') continue;
    }
    if (event.address === 0 || event.bytes === 0) continue;
    live.push({ id: ids++, address: event.address, bytes: event.bytes });
  }
  for (let i = live.length - 1; i >= 0; i--) {
    const c = live[i]!;
    if (address >= c.address && address < c.address + c.bytes) return `heap ${c.id} ${c.address}`;
  }
  return address >= sp && address < top ? 'stack' : 'static';
}

function describe(c: Container): string {
  return c.kind === 'heap' ? `heap ${c.id} ${c.address}` : c.kind;
}

test('the timeline finds the newest live container holding an address, as a scan of all of them does', () => {
  let seed = 12345;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const events: AllocationEvent[] = [];
  const handed: number[] = [];
  for (let k = 0; k < 1500; k++) {
    const roll = random(10);
    const address = 4096 + 16 * random(20_000);
    const bytes = random(50) === 0 ? (1 << 20) + random(1 << 21) : 1 + random(4000);
    if (roll < 5 || handed.length === 0) {
      events.push({ kind: random(20) === 0 ? 'grow' : 'alloc', address, bytes, old: 0, path: [], growSite: null });
      handed.push(address);
    } else if (roll < 8) {
      // Sometimes a free of an address never handed out, or of one freed already.
      const old = random(5) === 0 ? address : handed[random(handed.length)]!;
      events.push({ kind: 'free', address: 0, bytes: 0, old, path: [], growSite: null });
    } else {
      const old = handed[random(handed.length)]!;
      events.push({ kind: 'realloc', address: random(10) === 0 ? 0 : address, bytes, old, path: [], growSite: null });
      handed.push(address);
    }
  }
  const top = 4096 + 16 * 20_000 + (3 << 20);
  const timeline = new ContainerTimeline(events, () => 'malloc', top);
  let checked = 0;
  for (let count = 0; count <= events.length; count += 151) {
    timeline.advanceTo(count);
    for (let q = 0; q < 30; q++) {
      const address = 4096 + random(16 * 20_000 + (3 << 20));
      const sp = top - random(1 << 22);
      expect(describe(timeline.find(address, sp)), `after ${count} events, at ${address}`).toBe(
        scanAll(events, count, address, sp, top),
      );
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(250);
});
