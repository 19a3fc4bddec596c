// Compares what the original and an instrumented variant showed: the first difference, in words.
import type { Observation } from './harness.js';

export interface Difference {
  /** What differed: instantiate, events, globals, memory. */
  aspect: 'instantiate' | 'events' | 'globals' | 'memory';
  detail: string;
  /** The shape of the difference without its numbers: a shrunk module must keep the same one. */
  signature: string;
}

const shape = (event: string | undefined) =>
  (event ?? '<end>').replace(/\(.*\)/, '()').replace(/-?\d[\d.e+-]*n?|nan|Infinity/g, 'N');

export function compareObservations(original: Observation, instrumented: Observation): Difference | null {
  if (original.instantiate !== instrumented.instantiate) {
    return {
      aspect: 'instantiate',
      detail: `original: ${original.instantiate}; instrumented: ${instrumented.instantiate}`,
      signature: `instantiate: ${shape(original.instantiate)} / ${shape(instrumented.instantiate)}`,
    };
  }
  if (original.eventCount !== instrumented.eventCount || original.eventHash !== instrumented.eventHash) {
    const n = Math.min(original.events.length, instrumented.events.length);
    let i = 0;
    while (i < n && original.events[i] === instrumented.events[i]) i++;
    const context = original.events.slice(Math.max(0, i - 2), i).join(' | ');
    return {
      aspect: 'events',
      detail:
        `event ${i + 1}: original '${original.events[i] ?? (i >= original.eventCount ? '<end>' : '<beyond kept events>')}', ` +
        `instrumented '${instrumented.events[i] ?? (i >= instrumented.eventCount ? '<end>' : '<beyond kept events>')}'` +
        (context ? ` (after: ${context})` : '') +
        ` [${original.eventCount} vs ${instrumented.eventCount} events]`,
      signature: `events: ${shape(original.events[i])} / ${shape(instrumented.events[i])}`,
    };
  }
  const names = new Set([...Object.keys(original.globals), ...Object.keys(instrumented.globals)]);
  for (const name of names) {
    if (original.globals[name] !== instrumented.globals[name]) {
      return {
        aspect: 'globals',
        detail: `global ${name}: original ${original.globals[name] ?? '<absent>'}, instrumented ${instrumented.globals[name] ?? '<absent>'}`,
        signature: 'globals',
      };
    }
  }
  const a = original.memory;
  const b = instrumented.memory;
  if (a && !b)
    return { aspect: 'memory', detail: 'instrumented module exports no memory', signature: 'memory: not exported' };
  if (a && b) {
    if (b.length < a.length)
      return {
        aspect: 'memory',
        detail: `memory: original ${a.length} bytes, instrumented only ${b.length}`,
        signature: 'memory: size',
      };
    const offset = firstDifference(a, b);
    if (offset >= 0) {
      return {
        aspect: 'memory',
        detail: `memory byte ${offset} (0x${offset.toString(16)}): original ${a[offset]}, instrumented ${b[offset]}`,
        signature: 'memory: contents',
      };
    }
  }
  return null;
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (
    Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, a.length)) === 0
  )
    return -1;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}
