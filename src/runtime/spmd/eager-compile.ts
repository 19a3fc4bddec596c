// Compiles a module whole before it runs. SPMD ranks share one compiled module this way: V8
// compiles a function lazily on its first call, in the thread that calls it, so P ranks reaching the
// same function together each compile it, and a taint-instrumented function (LULESH's
// LagrangeLeapFrog has 15,858 locals) takes hundreds of MB to compile (`taint --ranks 8` of LULESH
// peaked at 5.9 GB). Compiled once here, the module's code travels to every rank with it.
// `optimized` compiles every function with TurboFan instead of Liftoff: V8 moves a hot function to
// TurboFan only for its next call (no on-stack replacement for Wasm), so a run whose one call does
// all the work would otherwise be timed in whichever tier it started in (docs/loops.md, issue 27).
// `baseline` still sends functions with very many locals to TurboFan (lazy-tier.ts: Liftoff's
// memory for them grows with locals × blocks).
import { HINTS_FLAG, compileWithFlags, withTierHints } from '../lazy-tier.js';

export type CompileTier = 'baseline' | 'optimized';

export function compileEagerly(bytes: Uint8Array, tier: CompileTier = 'baseline'): WebAssembly.Module {
  const off = tier === 'optimized' ? ['wasm-lazy-compilation', 'liftoff'] : ['wasm-lazy-compilation'];
  const hinted = tier === 'baseline' ? withTierHints(bytes) : bytes;
  return compileWithFlags(hinted, hinted === bytes ? [] : [HINTS_FLAG], off);
}
