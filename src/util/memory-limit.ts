// The program's default memory limit, as the README promises it: its declared maximum, else
// 1 GiB. One constant for the uninstrumented run (runtime/memory-cap.ts) and the instrumented
// memory layout (instrument/memory-layout.ts).
export const DEFAULT_MEMORY_LIMIT_MIB = 1024;

/** 64 KiB wasm pages per MiB. */
export const PAGES_PER_MIB = 16;

export const DEFAULT_MEMORY_LIMIT_PAGES = DEFAULT_MEMORY_LIMIT_MIB * PAGES_PER_MIB;
