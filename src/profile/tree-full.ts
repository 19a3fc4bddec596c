// What a report says when a calling-context tree filled during the run (see instrument/context-tree.ts),
// with the fix: the --context-tree size to run again with.

/** The default calling-context tree size (instrument/pipeline.ts), in bytes. */
export const DEFAULT_CONTEXT_TREE_BYTES = 16 << 20;
const MAX_CONTEXT_TREE_MIB = 1024;

/** The size to run again with: twice the tree that filled (the lost entries say it needs more, not how much). */
export function largerContextTree(bytes: number): number {
  return Math.min(MAX_CONTEXT_TREE_MIB, Math.max(2, 2 * Math.ceil(bytes / (1 << 20))));
}

function fix(bytes: number): string {
  const mib = Math.ceil(bytes / (1 << 20));
  return mib >= MAX_CONTEXT_TREE_MIB
    ? `it had the largest --context-tree (${MAX_CONTEXT_TREE_MIB} MiB): run it on a smaller input`
    : `run again with --context-tree ${largerContextTree(bytes)} (it had ${mib} MiB)`;
}

/** How every message about a filled tree begins (after `warning: `): readers recognise it by this. */
export const TREE_FILLED = 'the calling-context tree filled';

export function treeFullWarning(lost: number, bytes = DEFAULT_CONTEXT_TREE_BYTES): string {
  return `warning: ${TREE_FILLED}: ${lost.toLocaleString('en-US')} function entries found no room and were not counted (their loops and instructions are missing); ${fix(bytes)}`;
}

/** Why truncated counts are refused as measurements (nothing is stored for the point). */
export function treeFullRefusal(lost: number, bytes: number): string {
  return `${TREE_FILLED} (${lost.toLocaleString('en-US')} function entries not counted), so its counts are incomplete and are not stored; ${fix(bytes)}`;
}
