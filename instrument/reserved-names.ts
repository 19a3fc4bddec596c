// Names the memory layout adds to a module. Kept apart from memory-layout.ts so the runtime can
// read them without loading binaryen (a 0.5 s start-up in every run worker).
export const PROGRAM_PAGES_GLOBAL = 'taintlens$program_pages';
export const MEMORY_GROW_FUNCTION = 'taintlens$memory_grow';
export const PROGRAM_BYTES_GLOBAL = 'taintlens$program_bytes';
/** Set (then the program traps) when it grows past what instrumentation leaves it but not past its own maximum. */
export const OUT_OF_ROOM_GLOBAL = 'taintlens$out_of_room';
/** The program's size in bytes as i32 (it stays below 4 GiB: our regions take the top). */
export const PROGRAM_BYTES32_GLOBAL = 'taintlens$program_bytes32';
/** Every name instrumentation adds starts with this; a module exporting one was instrumented already. */
export const RESERVED_PREFIX = 'taintlens$';

/** Set (then the program traps) when a calling-context tree (loop profiler, taint) runs out of its reserved memory. */
export const CONTEXT_OVERFLOW_GLOBALS = ['taintlens$overflow', 'taintlens$toverflow'];
