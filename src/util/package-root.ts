// Taintlens's own package: the nearest package.json named taintlens above this file (in src/ or
// dist/src/), for the version and for the path of the CLI a SLURM job runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageRoot {
  dir: string;
  version: string | null;
}

export function packageRoot(): PackageRoot | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'taintlens') return { dir, version: pkg.version ?? null };
      } catch {
        // not ours: one folder up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
