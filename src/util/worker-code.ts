// Which code a worker thread runs. The built CLI starts the built worker. From source (vitest) a
// worker registers tsx and compiles its whole module graph again, about 0.3 s per thread and most
// of the test suite's time; so when dist/ was built after the last change to any source file, the
// built worker runs instead (and host plugins named by a source URL load from dist/ too).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const here = import.meta.url;
const inSource = here.endsWith('.ts');
/** The repository root in source; the dist/ folder when built. */
const root = new URL('../../', here);
const SOURCE_FOLDERS = ['src', 'instrument'];

let builtIsCurrent: boolean | undefined;

/** dist/ holds a build at least as new as every .ts under src/ and instrument/. */
export function useBuilt(): boolean {
  if (!inSource) return true;
  if (builtIsCurrent === undefined) {
    const rootDir = fileURLToPath(root);
    const marker = join(rootDir, 'dist', 'src', 'util', 'worker-code.js');
    builtIsCurrent =
      existsSync(marker) &&
      SOURCE_FOLDERS.every((folder) => newestSource(join(rootDir, folder)) <= statSync(marker).mtimeMs);
  }
  return builtIsCurrent;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** `src/x/y.ts` of this checkout as the built `dist/src/x/y.js`; other URLs unchanged. */
function builtUrl(url: string): string {
  if (!inSource || !url.startsWith(root.href) || !url.endsWith('.ts')) return url;
  return new URL(`dist/${url.slice(root.href.length).replace(/\.ts$/, '.js')}`, root).href;
}

/**
 * A worker thread running `entry` (a path under src/ without extension, e.g. `runtime/worker`).
 * It takes none of the process's Node options unless given some: a thread inheriting
 * `--input-type` or `--eval` (a process started as `node --input-type=module -e …`) fails to start.
 */
export function startWorker(entry: string, given: WorkerOptions = {}): Worker {
  const options: WorkerOptions = { execArgv: [], ...given };
  if (!inSource) return new Worker(new URL(`${entry}.js`, new URL('../', here)), options);
  if (useBuilt()) return new Worker(new URL(`dist/src/${entry}.js`, root), options);
  const source = pathToFileURL(join(fileURLToPath(root), 'src', `${entry}.ts`)).href;
  return new Worker(
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`,
    { ...options, eval: true },
  );
}

/** The URL a worker from startWorker imports a module by (host plugins are named by URL). */
export function workerModuleUrl(url: string): string {
  return useBuilt() ? builtUrl(url) : url;
}
