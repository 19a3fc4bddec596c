// Deterministic input generation shared by the kernels: a 32-bit linear
// congruential generator (Numerical Recipes constants). Both helpers are
// inlined by the AssemblyScript compiler, so they never show up as functions
// of their own in the compiled kernels.

/** Advances the generator state by one step. */
// @ts-ignore: decorator
@inline
export function lcgNext(state: u32): u32 {
  return state * 1664525 + 1013904223;
}

/** Maps a generator state to a double in [0, 1) using its upper 24 bits. */
// @ts-ignore: decorator
@inline
export function lcgUnit(state: u32): f64 {
  return <f64>(state >>> 8) * (1.0 / 16777216.0);
}
