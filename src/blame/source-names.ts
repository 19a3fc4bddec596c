// Variable names from source text: without DWARF variable info, the line of an allocation call
// (from debug line tables or a source map) usually names what receives it — `double *out =
// malloc(...)`, `const d = new Domain(size)`, `panel->l2 = calloc(...)`, `this.e = new ...`.
import { readFileSync } from 'node:fs';
import type { SourceLocation } from '../../instrument/debug/locations.js';

const files = new Map<string, string[] | null>();
const ASSIGNED = /(?:^|[\s(;{,*&])([A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*)\s*(?::\s*[\w<>[\]|. ]+?\s*)?=(?![=>])/;

/** Only lines that visibly allocate or call (a source map may put inlined code on a nearby line). */
const CALLS = /\(/;

export function assignedName(location: SourceLocation | null | undefined, pattern: RegExp = CALLS): string | null {
  if (!location) return null;
  let lines = files.get(location.file);
  if (lines === undefined) {
    try {
      lines = readFileSync(location.file, 'utf8').split('\n');
    } catch {
      lines = null;
    }
    files.set(location.file, lines);
  }
  const line = lines?.[location.line - 1];
  if (!line || !pattern.test(line)) return null;
  const match = ASSIGNED.exec(line.replace(/\/\/.*$/, ''));
  return match ? match[1]! : null;
}

/** The last component of a field access: `panel->l2` → `l2`, `this.e` → `e`. */
export function fieldName(name: string): string {
  return name.split(/\.|->/).pop()!;
}

/** Allocation-looking lines: `new X`, `malloc(`, `calloc(`, `realloc(`, `..._alloc(`. */
export const ALLOCATING = /\bnew\s|alloc\s*\(|\bmake_|\bcreate/;
