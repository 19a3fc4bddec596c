// Function names as people read them. AssemblyScript names carry their source path
// (`assembly/kernels/matmul/multiply`); tables show the last part, JSON keeps the full name.
export function displayName(name: string): string {
  const slash = name.lastIndexOf('/');
  return slash >= 0 && slash < name.length - 1 ? name.slice(slash + 1) : name;
}

/** A call path `a->b->c` (or `a > b > c`) with every function shortened. */
export function displayPath(path: string): string {
  return path.split(/(\s*->\s*|\s+>\s+)/).map((part, i) => (i % 2 === 0 ? displayName(part) : part)).join('');
}
