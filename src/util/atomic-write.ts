// Results are written atomically: to a temporary file beside the target, then renamed over it,
// so a crash or a kill never leaves a half-written result behind.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { fileError } from './errors.js';

/** Refuses an output path that cannot take a file, before any work is done for it. */
export function checkOutputFile(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) throw fileError(path, 'is a directory: give a file name to write');
}

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  checkOutputFile(path);
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, data);
    renameSync(temp, path);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The directory itself could not be made: there is no temporary file to remove.
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw fileError(path, 'cannot write: a file is in the way of its directory');
    if (code === 'EACCES' || code === 'EPERM') throw fileError(path, 'cannot write: permission denied');
    if (code) throw fileError(path, `cannot write (${code})`);
    throw error;
  }
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}
