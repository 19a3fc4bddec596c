// CPU time for timing a call on a shared machine: the wall clock also counts the time other
// processes hold the core, the CPU clock only the time this process ran. Node 20 offers the whole
// process's (process.cpuUsage, microseconds, exact); the thread's own figure in Linux's
// /proc/thread-self/schedstat is brought up to date only when the thread is switched out, so a
// call that runs undisturbed reads as 0. While a run worker calls the program the rest of a
// benchmark process only waits for it, so the process's time is the call's (less exactly: V8's
// background threads, e.g. still compiling Binaryen's hot functions after an instrumentation, add
// theirs); SPMD ranks, or test files, running in one process count each other's.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let fullGc: (() => void) | undefined;

/**
 * A full garbage collection, between repetitions and outside their timing. Without it the previous
 * repetition's instance and memory were collected by V8's concurrent marking threads during the
 * next timed call, and process CPU counted that work: jacobi-2d -O2's loop-profiled module took
 * 17.8–20.2 ms of CPU in 15.7–16.6 ms of wall time, the plain module's CPU equal to its wall time
 * (docs/blame.md, "Eleventh session (lead, main): the bench's CPU clock").
 */
export function collectGarbage(): void {
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as () => void;
  }
  fullGc();
  // The collection's sweeping and freeing go on in background threads: let them finish first.
  Atomics.wait(SETTLE, 0, 0, SETTLE_MS);
}

const SETTLE = new Int32Array(new SharedArrayBuffer(4));
const SETTLE_MS = 10;
