// CPU time for timing a call on a shared machine: the wall clock also counts the time other
// processes hold the core, the CPU clock only the time this process ran. Node 20 offers the whole
// process's (process.cpuUsage, microseconds, exact); the thread's own figure in Linux's
// /proc/thread-self/schedstat is brought up to date only when the thread is switched out, so a
// call that runs undisturbed reads as 0. While a run worker calls the program the rest of a
// benchmark process only waits for it, so the process's time is the call's (less exactly: V8's
// background threads, e.g. still compiling Binaryen's hot functions after an instrumentation, add
// theirs); SPMD ranks, or test files, running in one process count each other's.
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
