// Function names as people read them. AssemblyScript names carry their source path
// (`assembly/kernels/matmul/multiply`); tables show the last part, JSON keeps the full name.
export function displayName(name: string): string {
  const slash = name.lastIndexOf('/');
  return slash >= 0 && slash < name.length - 1 ? name.slice(slash + 1) : name;
}

/** A call path `a->b->c` (or `a > b > c`, `a→b→c`) with every function shortened. */
export function displayPath(path: string): string {
  return path
    .split(/(\s*->\s*|\s+>\s+|→)/)
    .map((part, i) => (i % 2 === 0 ? displayName(part) : part))
    .join('');
}

/**
 * The last elements of a call path that fit in `width` characters, the cut marked `…`:
 * `…->__new->__alloc`. Used as a table column's `shrink`.
 */
export function pathTail(path: string, width: number): string {
  if (path.length <= width) return path;
  const parts = path.split(/(\s*->\s*|\s+>\s+|→)/);
  let best: string | undefined;
  let suffix = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i > 0; i -= 2) {
    const candidate = `…${parts[i]!}${suffix}`;
    if (candidate.length > width) break;
    best = candidate;
    suffix = `${parts[i - 1]!}${parts[i]!}${suffix}`;
  }
  if (best !== undefined) return best;
  const last = parts[parts.length - 1]!;
  if (last.length < width) return `…${last}`;
  return width <= 1 ? last.slice(-width) : `…${last.slice(last.length - width + 1)}`;
}

/** `native/src/matmul.c:22` as `matmul.c:22`: tables name the file, JSON keeps the path. */
export function displaySource(source: string | null | undefined): string {
  if (!source) return '-';
  const slash = source.lastIndexOf('/');
  return slash >= 0 ? source.slice(slash + 1) : source;
}

/** Said under a table when the module lacks names (a stripped module has no name section). */
export function unnamedNote(unnamed: number): string {
  return `note: ${unnamed.toLocaleString('en-US')} function(s) of the module have no name (no name section, not exported): shown as funcN, N their index in the module`;
}
