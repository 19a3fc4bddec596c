// Results are written atomically and durably: to a temporary file beside the target, flushed to
// disk (fsync), renamed over it, and the folder flushed so the rename itself survives a power
// loss. A crash or a kill never leaves a half-written result behind, and a result reported
// written is on disk.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { fileError } from './errors.js';
import { jsonPieces } from './json-text.js';

/** A file's content: text, bytes, or text or bytes in pieces (written as they come, never joined). */
export type FileContent = string | Uint8Array | Iterable<string | Uint8Array>;

/** Refuses an output path that cannot take a file, before any work is done for it. */
export function checkOutputFile(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory())
    throw fileError(path, 'is a directory: give a file name to write');
}

export function writeFileAtomic(path: string, data: FileContent): void {
  checkOutputFile(path);
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeDurably(temp, data);
    renameSync(temp, path);
    syncFolder(dir);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The directory itself could not be made: there is no temporary file to remove.
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw fileError(path, 'cannot write: a file is in the way of its directory');
    if (code === 'EACCES' || code === 'EPERM') throw fileError(path, 'cannot write: permission denied');
    if (code) throw fileError(path, `cannot write (${code})`);
    throw error;
  }
}

/**
 * Appends `text` and flushes it to disk: the measurements of a campaign grow a point at a time, and
 * a point reported measured stays measured (a torn last append is cut off on resume).
 */
export function appendDurably(path: string, text: string): void {
  writeAndSync(path, 'a', Buffer.from(text));
}

/** `JSON.stringify(value, null, 2)` and a newline, written in pieces: a site table can be longer than a string can. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, withNewline(jsonPieces(value, 2)));
}

function* withNewline(pieces: Iterable<string>): Generator<string> {
  yield* pieces;
  yield '\n';
}

/** Writes the whole of `data` and flushes it to disk before the file is closed. */
function writeDurably(file: string, data: FileContent): void {
  writeAndSync(file, 'w', typeof data === 'string' ? Buffer.from(data) : data);
}

/** Pieces of text are gathered into writes of about this many characters. */
const PIECE_BATCH = 1 << 20;

function writeAndSync(file: string, flags: 'w' | 'a', data: Uint8Array | Iterable<string | Uint8Array>): void {
  const fd = openSync(file, flags);
  const writeAll = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
  };
  try {
    if (data instanceof Uint8Array) writeAll(data);
    else {
      let batch: string[] = [];
      let size = 0;
      for (const piece of data) {
        if (piece instanceof Uint8Array) {
          writeAll(Buffer.from(batch.join('')));
          writeAll(piece);
          batch = [];
          size = 0;
          continue;
        }
        batch.push(piece);
        size += piece.length;
        if (size < PIECE_BATCH) continue;
        writeAll(Buffer.from(batch.join('')));
        batch = [];
        size = 0;
      }
      writeAll(Buffer.from(batch.join('')));
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a folder's entries (the rename); file systems that cannot sync a folder are left as they are. */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
  } finally {
    closeSync(fd);
  }
}
