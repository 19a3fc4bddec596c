// The memory plan an instrumented module was built with (where the program and our regions live),
// as plain data: what the runtime needs to start such a module, without loading Binaryen.

export const PAGE = 65536;

export type Placement = 'below' | 'above';

export interface MemoryLayout {
  placement: Placement;
  /** The program's own maximum (declared, else what wasm32 allows). */
  programMaxPages: number;
  /** Where program address 0 lives in the real memory (0 when our regions sit above). */
  programBase: number;
  /** Pages the program may use at most (its logical memory limit). */
  programLimitPages: number;
  /** Pages the program starts with. */
  programInitialPages: number;
  /** Byte address where each region starts. */
  regions: Record<string, { base: number; bytes: number }>;
  /** Pages of the real memory: program limit plus regions. */
  totalPages: number;
}

/** Pages the real memory starts with. */
export function initialRealPages(layout: MemoryLayout): number {
  return layout.placement === 'below' ? layout.programBase / PAGE + layout.programInitialPages : layout.totalPages;
}
