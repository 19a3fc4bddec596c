// The files a module loads: its static imports (and literal dynamic ones), followed transitively
// through relative specifiers, in source (.ts behind a `./x.js` specifier) or built (.js) form, and
// one hash over their contents plus the name and version of every package they import. Keys that
// must change whenever the code behind them changes (the instrumentation cache) are built on it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ModuleGraph {
  /** Absolute paths of the files loaded, entry first, then in discovery order. */
  files: string[];
  /** `name@version` of each package imported by a bare specifier (node: builtins left out). */
  packages: string[];
  /** sha256 over the files' paths relative to the entry's folder, their contents and the packages. */
  hash: string;
}

// `import x from '…'`, `import { a,\n b } from '…'`, `import '…'`, `export … from '…'`, `import('…')`.
// Type-only imports and exports load nothing at run time and are skipped.
const STATIC = /(?:^|[\n;}])\s*(import|export)\s+(type\s+)?(?:[\w*{][^'";]*?\s+from\s+)?(['"])([^'"\n]+)\3/g;
const DYNAMIC = /\bimport\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/** The specifiers a module's text loads at run time. */
export function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(STATIC)) {
    if (match[2] === undefined && match[4] !== undefined) out.push(match[4]);
  }
  for (const match of text.matchAll(DYNAMIC)) if (match[2] !== undefined) out.push(match[2]);
  return out;
}

export function moduleGraph(entry: string): ModuleGraph {
  const root = dirname(resolve(entry));
  const files: string[] = [];
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [resolve(entry)];
  const hash = createHash('sha256');
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    files.push(file);
    const text = readFileSync(file, 'utf8');
    hash.update(relative(root, file)).update('\0').update(text).update('\0');
    for (const specifier of importSpecifiers(text)) {
      if (specifier.startsWith('.')) {
        const target = resolveRelative(file, specifier);
        if (target) queue.push(target);
      } else if (!specifier.startsWith('node:')) {
        packages.add(packageIdentity(file, specifier));
      }
    }
  }
  const sortedPackages = [...packages].sort();
  for (const pkg of sortedPackages) hash.update(pkg).update('\0');
  return { files, packages: sortedPackages, hash: hash.digest('hex') };
}

/** `./x.js` from a file: the file itself, or in source form the .ts beside it. */
function resolveRelative(from: string, specifier: string): string | null {
  const target = resolve(dirname(from), specifier);
  if (existsSync(target)) return target;
  const source = target.replace(/\.js$/, '.ts');
  return source !== target && existsSync(source) ? source : null;
}

/** `binaryen` or `@scope/name/sub` → `binaryen@132.0.0`, from the nearest node_modules above `from`. */
function packageIdentity(from: string, specifier: string): string {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
      return `${name}@${version ?? '?'}`;
    }
    if (dirname(dir) === dir) return `${name}@?`;
  }
}
