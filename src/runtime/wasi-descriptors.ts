// The WASI host's descriptor table: what a descriptor is (stdin/stdout/stderr, an open host file, a
// directory: preopened or opened below one), its rights (kept per descriptor as uvwasi keeps them),
// and the guest-memory records the fd_* and path_* calls read and write (strings, iovecs, filestat).
// wasi-files.ts, wasi-directories.ts and wasi-paths.ts implement the calls on it.
import * as fs from 'node:fs';
import { resolve as resolveHost } from 'node:path';
import {
  DIRECTORY_RIGHTS,
  ERRNO,
  FILE_RIGHTS,
  FILESTAT,
  FILETYPE,
  FSTFLAGS,
  RIGHTS,
  STDIO_RIGHTS,
  errnoOf,
} from './wasi-abi.js';
import type { Preopen } from './protocol.js';

/** What the WASI functions need of guest memory (program addresses, offset by programBase). */
export interface GuestMemory {
  bytes(): Uint8Array;
  view(): DataView;
  at(pointer: number | bigint): number;
}

export interface Rights {
  base: bigint;
  inheriting: bigint;
}

export interface StdioEntry {
  kind: 'stdio';
  stream: 0 | 1 | 2;
  rights: Rights;
  flags: number;
}

export interface FileEntry {
  kind: 'file';
  host: string;
  fd: number;
  position: bigint;
  flags: number;
  rights: Rights;
  root: Preopen;
}

export interface DirEntry {
  kind: 'dir';
  host: string;
  /** Node descriptor of an opened directory; null for a preopen (opened by path). */
  fd: number | null;
  flags: number;
  rights: Rights;
  root: Preopen;
  /** Its path inside the preopen, in guest form ('.' for the preopen itself). */
  inner: string;
  preopen: boolean;
}

export type Entry = StdioEntry | FileEntry | DirEntry;
export type Args = Array<number | bigint>;
export type Arg = Args[number] | undefined;
export type WasiFunction = (...args: Args) => number;

export const n = (value: number | bigint | undefined) => Number(value ?? 0);
export const big = (value: number | bigint | undefined) => BigInt(value ?? 0);

export function fileType(stat: fs.BigIntStats | fs.Dirent): number {
  if (stat.isDirectory()) return FILETYPE.DIRECTORY;
  if (stat.isSymbolicLink()) return FILETYPE.SYMBOLIC_LINK;
  if (stat.isFile()) return FILETYPE.REGULAR_FILE;
  if (stat.isCharacterDevice()) return FILETYPE.CHARACTER_DEVICE;
  if (stat.isBlockDevice()) return FILETYPE.BLOCK_DEVICE;
  return FILETYPE.UNKNOWN;
}

/** Runs a node:fs change, answering its errno when it throws. */
export function attempt(change: () => void): number {
  try {
    change();
    return ERRNO.SUCCESS;
  } catch (error) {
    return errnoOf(error);
  }
}

/** Runs a call's body, answering the errno of a node:fs failure. */
export function guarded(body: () => number): number {
  try {
    return body();
  } catch (error) {
    return errnoOf(error);
  }
}

export class Descriptors {
  readonly open = new Map<number, Entry>();
  stdinPosition = 0;

  constructor(
    readonly memory: GuestMemory,
    preopens: readonly Preopen[],
    readonly stdin: Uint8Array,
    readonly output: (stream: 1 | 2, bytes: Uint8Array) => void,
  ) {
    for (const stream of [0, 1, 2] as const)
      this.open.set(stream, { kind: 'stdio', stream, rights: { base: STDIO_RIGHTS, inheriting: 0n }, flags: 0 });
    preopens.forEach((root, i) => {
      this.open.set(3 + i, {
        kind: 'dir',
        host: resolveHost(root.host),
        fd: null,
        flags: 0,
        root,
        inner: '.',
        preopen: true,
        rights: { base: DIRECTORY_RIGHTS, inheriting: DIRECTORY_RIGHTS | FILE_RIGHTS },
      });
    });
  }

  /** Closes every host file the program left open (after each repetition). */
  closeAll(): void {
    for (const entry of this.open.values()) if (entry.kind !== 'stdio' && entry.fd !== null) fs.closeSync(entry.fd);
    this.open.clear();
  }

  /** For poll_oneoff: whether `fd` can be read/written now (always: nothing here blocks) and how many bytes wait. */
  readiness(fd: number, reading: boolean): { error: number; nbytes: bigint } {
    const entry = this.entry(fd, RIGHTS.POLL_FD_READWRITE);
    if (typeof entry === 'number') return { error: entry, nbytes: 0n };
    if (!reading) return { error: ERRNO.SUCCESS, nbytes: 0n };
    if (entry.kind === 'stdio')
      return { error: ERRNO.SUCCESS, nbytes: entry.stream === 0 ? BigInt(this.stdin.length - this.stdinPosition) : 0n };
    if (entry.kind === 'file') {
      const size = fs.fstatSync(entry.fd, { bigint: true }).size;
      return { error: ERRNO.SUCCESS, nbytes: size > entry.position ? size - entry.position : 0n };
    }
    return { error: ERRNO.SUCCESS, nbytes: 0n };
  }

  /** The entry behind `fd` if it has `right`, else BADF or NOTCAPABLE. */
  entry(fd: Arg, right: bigint): Entry | number {
    const entry = this.open.get(n(fd));
    if (!entry) return ERRNO.BADF;
    return (entry.rights.base & right) === right ? entry : ERRNO.NOTCAPABLE;
  }

  /** Runs `body` on the entry behind `fd` if it has `right`, else answers BADF or NOTCAPABLE. */
  withEntry(fd: Arg, right: bigint, body: (entry: Entry) => number): number {
    const entry = this.entry(fd, right);
    return typeof entry === 'number' ? entry : body(entry);
  }

  lowestFreeFd(): number {
    let fd = 3;
    while (this.open.has(fd)) fd++;
    return fd;
  }

  readString(pointer: Arg, length: Arg): string {
    const at = this.memory.at(pointer ?? 0);
    return Buffer.from(this.memory.bytes().subarray(at, at + n(length))).toString('utf8');
  }

  put32(pointer: Arg, value: number): void {
    this.memory.view().setUint32(this.memory.at(pointer ?? 0), value, true);
  }

  put64(pointer: Arg, value: bigint): void {
    this.memory.view().setBigUint64(this.memory.at(pointer ?? 0), value, true);
  }

  writeFilestat(pointer: Arg, stat: fs.BigIntStats | null): void {
    const view = this.memory.view();
    const at = this.memory.at(pointer ?? 0);
    this.memory.bytes().fill(0, at, at + 64);
    if (!stat) {
      view.setUint8(at + FILESTAT.filetype, FILETYPE.CHARACTER_DEVICE);
      return;
    }
    view.setBigUint64(at + FILESTAT.dev, stat.dev, true);
    view.setBigUint64(at + FILESTAT.ino, stat.ino, true);
    view.setUint8(at + FILESTAT.filetype, fileType(stat));
    view.setBigUint64(at + FILESTAT.nlink, stat.nlink, true);
    view.setBigUint64(at + FILESTAT.size, stat.size, true);
    view.setBigUint64(at + FILESTAT.atim, stat.atimeNs, true);
    view.setBigUint64(at + FILESTAT.mtim, stat.mtimeNs, true);
    view.setBigUint64(at + FILESTAT.ctim, stat.ctimeNs, true);
  }
}

/** New access and modification times in seconds from fst_flags, or INVAL. */
export function newTimes(
  current: () => fs.BigIntStats,
  atim: bigint,
  mtim: bigint,
  flags: number,
): [number, number] | number {
  if ((flags & FSTFLAGS.ATIM && flags & FSTFLAGS.ATIM_NOW) || (flags & FSTFLAGS.MTIM && flags & FSTFLAGS.MTIM_NOW))
    return ERRNO.INVAL;
  if (flags & ~0xf) return ERRNO.INVAL;
  const now = Date.now() / 1000;
  const pick = (set: number, setNow: number, value: bigint, old: () => bigint) =>
    flags & set ? Number(value) / 1e9 : flags & setNow ? now : Number(old()) / 1e9;
  return [
    pick(FSTFLAGS.ATIM, FSTFLAGS.ATIM_NOW, atim, () => current().atimeNs),
    pick(FSTFLAGS.MTIM, FSTFLAGS.MTIM_NOW, mtim, () => current().mtimeNs),
  ];
}
