// `run --memory-limit MiB` on an uninstrumented module: the cap becomes the memory's declared
// maximum, so a memory.grow past it fails (returns -1) exactly as if the module had declared it.
// Without --memory-limit, a memory with no declared maximum gets the default 1 GiB the README
// promises. (Instrumented runs stop with an error instead, since there the program would have grown.)
import { patchMemoryLimits, readMemoryLimits } from '../../instrument/binary-patch.js';
import { fileError } from '../util/errors.js';
import { DEFAULT_MEMORY_LIMIT_PAGES, PAGES_PER_MIB } from '../util/memory-limit.js';

/** The module as `run` executes it: capped at --memory-limit, else at its declared maximum or 1 GiB. */
export function capMemoryOrDefault(bytes: Uint8Array, file: string, limitPages: number | undefined): Uint8Array {
  if (limitPages !== undefined) return capMemory(bytes, file, limitPages);
  const limits = readMemoryLimits(bytes);
  // A declared maximum is the program's own; shared and 64-bit memories are left as they are.
  if (!limits || limits.maxPages !== null || limits.flags & ~1) return bytes;
  return patchMemoryLimits(bytes, limits.initialPages, Math.max(limits.initialPages, DEFAULT_MEMORY_LIMIT_PAGES));
}

export function capMemory(bytes: Uint8Array, file: string, limitPages: number): Uint8Array {
  const limits = readMemoryLimits(bytes);
  if (!limits) return bytes; // no memory of its own: nothing can grow
  if (limits.flags & ~1)
    throw fileError(file, "--memory-limit: the module's memory is shared or 64-bit; it cannot be capped", 2);
  if (limits.initialPages > limitPages) {
    throw fileError(
      file,
      `--memory-limit ${limitPages / PAGES_PER_MIB} MiB is below the ${Math.ceil(limits.initialPages / PAGES_PER_MIB)} MiB the program starts with`,
      2,
    );
  }
  if (limits.maxPages !== null && limits.maxPages <= limitPages) return bytes;
  return patchMemoryLimits(bytes, limits.initialPages, limitPages);
}
