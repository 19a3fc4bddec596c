// The taint analysis's propagation rules a user chooses (taint --implicit-flow, --pointer-labels),
// with their defaults. No imports: the CLI's option definitions load it at start-up.

/** A load's label: 'data' the labels of the bytes read; 'join' also the address's label. */
export type PointerLabels = 'data' | 'join';
export const POINTER_LABELS: readonly PointerLabels[] = ['data', 'join'];
/**
 * How far control dependence carries labels: 'on' every tainted branch (values merged at its
 * post-dominator, stores and callees under it; Perf-Taint's control-flow mode); 'loops' only a
 * loop's exit conditions, into the values carried to the loop's next iteration (a nest bounded by
 * an outer counter depends on the outer loop's parameters); 'off' none (DFSan's data flow).
 */
export type ImplicitFlow = 'on' | 'loops' | 'off';
export const IMPLICIT_FLOWS: readonly ImplicitFlow[] = ['on', 'loops', 'off'];
/** The semantics Perf-Taint's own LULESH output reproduces (docs/lulesh.md), and our triangular nests need. */
export const DEFAULT_IMPLICIT_FLOW: ImplicitFlow = 'loops';
export const DEFAULT_POINTER_LABELS: PointerLabels = 'join';
