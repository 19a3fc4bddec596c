// Allocation routines whose calls make heap containers: wasi-libc's dlmalloc entry points and the
// AssemblyScript runtime's (stub, minimal or incremental). Matched by name (the name section) and
// signature; `bytes` are the parameter(s) giving the size (two: multiplied), `old` the parameter
// holding the block freed or resized.
import binaryen from 'binaryen';

export type AllocatorKind = 'alloc' | 'free' | 'realloc';

export interface Allocator {
  kind: AllocatorKind;
  bytes: number[];
  old?: number;
  params: number;
  returns: boolean;
}

export const ALLOCATORS: Record<string, Allocator> = {
  malloc: { kind: 'alloc', bytes: [0], params: 1, returns: true },
  calloc: { kind: 'alloc', bytes: [0, 1], params: 2, returns: true },
  realloc: { kind: 'realloc', bytes: [1], old: 0, params: 2, returns: true },
  aligned_alloc: { kind: 'alloc', bytes: [1], params: 2, returns: true },
  free: { kind: 'free', bytes: [], old: 0, params: 1, returns: false },
  __new: { kind: 'alloc', bytes: [0], params: 2, returns: true },
  __alloc: { kind: 'alloc', bytes: [0], params: 1, returns: true },
  __renew: { kind: 'realloc', bytes: [1], old: 0, params: 2, returns: true },
  __realloc: { kind: 'realloc', bytes: [1], old: 0, params: 2, returns: true },
  __free: { kind: 'free', bytes: [], old: 0, params: 1, returns: false },
};

/** The allocator a function is, by its display name (`~lib/rt/stub/__new` → `__new`) and i32 signature. */
export function allocatorOf(name: string, params: number[], result: number): Allocator | null {
  const short = name.slice(name.lastIndexOf('/') + 1);
  const allocator = Object.hasOwn(ALLOCATORS, short) ? ALLOCATORS[short]! : null;
  if (!allocator || params.length !== allocator.params || params.some((p) => p !== binaryen.i32)) return null;
  if (allocator.returns ? result !== binaryen.i32 : result !== binaryen.none) return null;
  return allocator;
}
