// What a report says when the calling-context tree filled during the run (see instrument/context-tree.ts).

export function treeFullWarning(lost: number): string {
  return `warning: the calling-context tree filled: ${lost.toLocaleString('en-US')} function entries found no room and were not counted (their loops and instructions are missing); raise --context-tree for a complete profile`;
}
