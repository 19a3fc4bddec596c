// CPU time of the calling thread, for timing a call on a shared machine: wall time also counts
// the time other processes hold the core, CPU time only the time this thread ran. Linux reports it
// in /proc/thread-self/schedstat (nanoseconds on the CPU, first field); elsewhere there is none.
import { readFileSync } from 'node:fs';

const SCHEDSTAT = '/proc/thread-self/schedstat';

let available: boolean | undefined;

/** Milliseconds this thread has run on a CPU so far, or null where the system does not say. */
export function threadCpuMs(): number | null {
  if (available === false) return null;
  try {
    const nanoseconds = Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
    available = Number.isFinite(nanoseconds);
    return available ? nanoseconds / 1e6 : null;
  } catch {
    available = false;
    return null;
  }
}
