// The WASI host's descriptors: stdin served from bytes given up front, stdout/stderr handed to the
// host's capture, and preopened host directories (`--dir HOST[:GUEST]`, read-only unless opened
// with `--dir-rw`) with every fd_* and path_* call of wasi_snapshot_preview1 that node:wasi has.
// Paths are resolved inside their preopen: a path, or a symbolic link, that leads out of it is
// refused (NOTCAPABLE), as a WASI runtime must. Rights are kept per descriptor as uvwasi keeps them.
import * as fs from 'node:fs';
import { posix, resolve as resolveHost, join as joinHost, dirname, basename, sep } from 'node:path';
import {
  ADVICE_MAX,
  DIRECTORY_RIGHTS,
  DIRENT,
  ERRNO,
  FDFLAGS,
  FDSTAT,
  FILE_RIGHTS,
  FILESTAT,
  FILETYPE,
  FSTFLAGS,
  LOOKUP_SYMLINK_FOLLOW,
  OFLAGS,
  RIGHTS,
  STDIO_RIGHTS,
  WHENCE,
  WRITE_RIGHTS,
  errnoOf,
} from './wasi-abi.js';
import type { Preopen } from './protocol.js';

export { ERRNO } from './wasi-abi.js';

/** What the WASI functions need of guest memory (program addresses, offset by programBase). */
export interface GuestMemory {
  bytes(): Uint8Array;
  view(): DataView;
  at(pointer: number | bigint): number;
}

interface Rights {
  base: bigint;
  inheriting: bigint;
}

interface StdioEntry {
  kind: 'stdio';
  stream: 0 | 1 | 2;
  rights: Rights;
  flags: number;
}

interface FileEntry {
  kind: 'file';
  host: string;
  fd: number;
  position: bigint;
  flags: number;
  rights: Rights;
  root: Preopen;
}

interface DirEntry {
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

type Entry = StdioEntry | FileEntry | DirEntry;
type Args = Array<number | bigint>;
export type WasiFunction = (...args: Args) => number;

const n = (value: number | bigint | undefined) => Number(value ?? 0);
const big = (value: number | bigint | undefined) => BigInt(value ?? 0);

function fileType(stat: fs.BigIntStats | fs.Dirent): number {
  if (stat.isDirectory()) return FILETYPE.DIRECTORY;
  if (stat.isSymbolicLink()) return FILETYPE.SYMBOLIC_LINK;
  if (stat.isFile()) return FILETYPE.REGULAR_FILE;
  if (stat.isCharacterDevice()) return FILETYPE.CHARACTER_DEVICE;
  if (stat.isBlockDevice()) return FILETYPE.BLOCK_DEVICE;
  return FILETYPE.UNKNOWN;
}

/** Runs a node:fs change, answering its errno when it throws. */
function attempt(change: () => void): number {
  try {
    change();
    return ERRNO.SUCCESS;
  } catch (error) {
    return errnoOf(error);
  }
}

export class WasiFiles {
  private readonly open = new Map<number, Entry>();
  private readonly realRoots = new Map<Preopen, string>();
  private stdinPosition = 0;

  constructor(
    private readonly memory: GuestMemory,
    preopens: readonly Preopen[],
    private readonly stdin: Uint8Array,
    private readonly output: (stream: 1 | 2, bytes: Uint8Array) => void,
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
  private entry(fd: number | bigint | undefined, right: bigint): Entry | number {
    const entry = this.open.get(n(fd));
    if (!entry) return ERRNO.BADF;
    return (entry.rights.base & right) === right ? entry : ERRNO.NOTCAPABLE;
  }

  private readString(pointer: number | bigint | undefined, length: number | bigint | undefined): string {
    const at = this.memory.at(pointer ?? 0);
    return Buffer.from(this.memory.bytes().subarray(at, at + n(length))).toString('utf8');
  }

  private put32(pointer: number | bigint | undefined, value: number): void {
    this.memory.view().setUint32(this.memory.at(pointer ?? 0), value, true);
  }

  private put64(pointer: number | bigint | undefined, value: bigint): void {
    this.memory.view().setBigUint64(this.memory.at(pointer ?? 0), value, true);
  }

  private realRoot(root: Preopen): string {
    let real = this.realRoots.get(root);
    if (real === undefined) {
      real = fs.realpathSync(resolveHost(root.host));
      this.realRoots.set(root, real);
    }
    return real;
  }

  /** Whether `host`, with every symbolic link on the way resolved, stays inside the preopen. */
  private confined(root: Preopen, host: string): boolean {
    let existing = host;
    let rest = '';
    for (;;) {
      try {
        const real = joinHost(fs.realpathSync(existing), rest);
        const top = this.realRoot(root);
        return real === top || real.startsWith(top.endsWith(sep) ? top : top + sep);
      } catch {
        if (dirname(existing) === existing) return false;
        rest = joinHost(basename(existing), rest);
        existing = dirname(existing);
      }
    }
  }

  /**
   * Host path of `path` under directory `dirFd` (which needs `right`), or an errno when the
   * path leaves the preopen. `follow`: a symbolic link at the end is followed (and checked).
   */
  private resolve(
    dirFd: number | bigint | undefined,
    pointer: number | bigint | undefined,
    length: number | bigint | undefined,
    right: bigint,
    follow: boolean,
  ): { dir: DirEntry; host: string; inner: string } | number {
    const dir = this.entry(dirFd, right);
    if (typeof dir === 'number') return dir;
    if (dir.kind !== 'dir') return ERRNO.NOTDIR;
    const path = this.readString(pointer, length);
    if (path.includes('\0')) return ERRNO.INVAL;
    if (path.startsWith('/')) return ERRNO.NOTCAPABLE;
    // A path may not climb out of the directory it is relative to (nor, through it, out of the preopen).
    const relative = posix.normalize(path);
    if (relative === '..' || relative.startsWith('../')) return ERRNO.NOTCAPABLE;
    const inner = posix.join(dir.inner, relative);
    // A trailing slash is the program's to keep: "file/" must answer NOTDIR, as on the host.
    const host = joinHost(resolveHost(dir.root.host), inner) + (path.endsWith('/') && inner !== '.' ? '/' : '');
    const bare = host.replace(/\/+$/, '');
    const checked = follow || inner === '.' ? bare : dirname(bare);
    if (!this.confined(dir.root, checked)) return ERRNO.NOTCAPABLE;
    return { dir, host, inner };
  }

  /** The guest buffers of an iovec array (ciovec and iovec share the layout). */
  private buffers(iovs: number | bigint | undefined, count: number | bigint | undefined): Uint8Array[] {
    const view = this.memory.view();
    const bytes = this.memory.bytes();
    const list: Uint8Array[] = [];
    for (let i = 0; i < n(count); i++) {
      const base = this.memory.at(view.getUint32(this.memory.at(iovs ?? 0) + 8 * i, true));
      list.push(bytes.subarray(base, base + view.getUint32(this.memory.at(iovs ?? 0) + 8 * i + 4, true)));
    }
    return list;
  }

  /** Reads into the buffers at `offset` (a file) or from stdin, returning the byte count. */
  private readBuffers(entry: Entry, buffers: Uint8Array[], offset: bigint | null): number {
    let total = 0;
    for (const target of buffers) {
      let got: number;
      if (entry.kind === 'stdio') {
        const chunk = this.stdin.subarray(this.stdinPosition, this.stdinPosition + target.length);
        target.set(chunk);
        this.stdinPosition += chunk.length;
        got = chunk.length;
      } else {
        got = fs.readSync((entry as FileEntry).fd, target, 0, target.length, offset! + BigInt(total));
      }
      total += got;
      if (got < target.length) break;
    }
    return total;
  }

  private writeBuffers(entry: Entry, buffers: Uint8Array[], offset: bigint | null): number {
    let total = 0;
    for (const source of buffers) {
      if (entry.kind === 'stdio') {
        this.output(entry.stream as 1 | 2, source.slice());
        total += source.length;
      } else {
        total += fs.writeSync((entry as FileEntry).fd, source, 0, source.length, Number(offset! + BigInt(total)));
      }
    }
    return total;
  }

  private writeFilestat(pointer: number | bigint | undefined, stat: fs.BigIntStats | null): void {
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

  /** New access and modification times in seconds from fst_flags, or INVAL. */
  private times(current: () => fs.BigIntStats, atim: bigint, mtim: bigint, flags: number): [number, number] | number {
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

  /** A path call that changes the preopen: refused (ROFS) under a read-only one. */
  private change(
    dirFd: Args[number] | undefined,
    path: Args[number] | undefined,
    length: Args[number] | undefined,
    right: bigint,
    follow: boolean,
    apply: (host: string) => void,
  ): number {
    const where = this.resolve(dirFd, path, length, right, follow);
    if (typeof where === 'number') return where;
    if (!where.dir.root.writable) return ERRNO.ROFS;
    return attempt(() => apply(where.host));
  }

  private pathOpen(args: Args): number {
    const [dirFd, lookupFlags, path, pathLength, oflagsArg, rightsBase, rightsInheriting, fdflagsArg, result] = args;
    const oflags = n(oflagsArg);
    const fdflags = n(fdflagsArg);
    const needed =
      RIGHTS.PATH_OPEN |
      (oflags & OFLAGS.CREAT ? RIGHTS.PATH_CREATE_FILE : 0n) |
      (oflags & OFLAGS.TRUNC ? RIGHTS.PATH_FILESTAT_SET_SIZE : 0n);
    const follow = (n(lookupFlags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
    const where = this.resolve(dirFd, path, pathLength, needed, follow);
    if (typeof where === 'number') return where;
    const requested = big(rightsBase);
    const write = (requested & WRITE_RIGHTS) !== 0n;
    const read = (requested & (RIGHTS.FD_READ | RIGHTS.FD_READDIR)) !== 0n;
    const wantsChange = write || (oflags & (OFLAGS.CREAT | OFLAGS.TRUNC)) !== 0 || (fdflags & FDFLAGS.APPEND) !== 0;
    if (wantsChange && !where.dir.root.writable) return ERRNO.ROFS;
    const c = fs.constants;
    let flags = write ? (read ? c.O_RDWR : c.O_WRONLY) : c.O_RDONLY;
    if (oflags & OFLAGS.CREAT) flags |= c.O_CREAT;
    if (oflags & OFLAGS.EXCL) flags |= c.O_EXCL;
    if (oflags & OFLAGS.TRUNC) flags |= c.O_TRUNC;
    if (oflags & OFLAGS.DIRECTORY) flags |= c.O_DIRECTORY;
    if (!follow) flags |= c.O_NOFOLLOW;
    let fd: number;
    try {
      fd = fs.openSync(where.host, flags, 0o644);
    } catch (error) {
      return errnoOf(error);
    }
    const isDir = fs.fstatSync(fd).isDirectory();
    const inheriting = big(rightsInheriting) & where.dir.rights.inheriting;
    const entry: Entry = isDir
      ? {
          kind: 'dir',
          host: where.host,
          fd,
          flags: fdflags,
          rights: { base: requested & DIRECTORY_RIGHTS, inheriting },
          root: where.dir.root,
          inner: where.inner,
          preopen: false,
        }
      : {
          kind: 'file',
          host: where.host,
          fd,
          position: 0n,
          flags: fdflags,
          rights: { base: requested & FILE_RIGHTS, inheriting },
          root: where.dir.root,
        };
    const number = this.lowestFreeFd();
    this.open.set(number, entry);
    this.put32(result, number);
    return ERRNO.SUCCESS;
  }

  private lowestFreeFd(): number {
    let fd = 3;
    while (this.open.has(fd)) fd++;
    return fd;
  }

  private readdir(args: Args): number {
    const [fd, buffer, length, cookie, used] = args;
    const dir = this.entry(fd, RIGHTS.FD_READDIR);
    if (typeof dir === 'number') return dir;
    if (dir.kind !== 'dir') return ERRNO.NOTDIR;
    let names: Array<{ name: string; type: number; ino: bigint }>;
    try {
      const inode = (path: string) => {
        try {
          return fs.lstatSync(path, { bigint: true }).ino;
        } catch {
          return 0n;
        }
      };
      names = [
        { name: '.', type: FILETYPE.DIRECTORY, ino: inode(dir.host) },
        { name: '..', type: FILETYPE.DIRECTORY, ino: inode(dirname(dir.host)) },
        ...fs
          .readdirSync(dir.host, { withFileTypes: true })
          .map((entry) => ({ name: entry.name, type: fileType(entry), ino: inode(joinHost(dir.host, entry.name)) })),
      ];
    } catch (error) {
      return errnoOf(error);
    }
    const room = n(length);
    const out = Buffer.alloc(room);
    let written = 0;
    for (let i = Number(big(cookie)); i < names.length && written < room; i++) {
      const entry = names[i]!;
      const name = Buffer.from(entry.name, 'utf8');
      const record = Buffer.alloc(DIRENT.bytes + name.length);
      record.writeBigUInt64LE(BigInt(i + 1), DIRENT.next);
      record.writeBigUInt64LE(entry.ino, DIRENT.ino);
      record.writeUInt32LE(name.length, DIRENT.namlen);
      record.writeUInt8(entry.type, DIRENT.type);
      name.copy(record, DIRENT.bytes);
      // A record that does not fit is cut off: the program sees bufused == buf_len and asks again.
      written += record.copy(out, written, 0, Math.min(record.length, room - written));
    }
    this.memory.bytes().set(out.subarray(0, written), this.memory.at(buffer ?? 0));
    this.put32(used, written);
    return ERRNO.SUCCESS;
  }

  /** Every fd_*, path_* and sock_* function of wasi_snapshot_preview1. */
  functions(): Record<string, WasiFunction> {
    const withEntry = (fd: Args[number] | undefined, right: bigint, body: (entry: Entry) => number): number => {
      const entry = this.entry(fd, right);
      return typeof entry === 'number' ? entry : body(entry);
    };
    const guarded = (body: () => number) => {
      try {
        return body();
      } catch (error) {
        return errnoOf(error);
      }
    };
    const withFile = (fd: Args[number] | undefined, right: bigint, body: (file: FileEntry) => number): number =>
      withEntry(fd, right, (entry) =>
        entry.kind === 'file' ? guarded(() => body(entry)) : entry.kind === 'dir' ? ERRNO.ISDIR : ERRNO.SPIPE,
      );
    const socket = (fd: Args[number] | undefined) => (this.open.has(n(fd)) ? ERRNO.NOTSOCK : ERRNO.BADF);
    return {
      fd_read: (fd, iovs, count, nread) =>
        withEntry(fd, RIGHTS.FD_READ, (entry) => {
          if (entry.kind === 'dir') return ERRNO.ISDIR;
          if (entry.kind === 'stdio' && entry.stream !== 0) return ERRNO.BADF;
          return guarded(() => {
            const total = this.readBuffers(
              entry,
              this.buffers(iovs, count),
              entry.kind === 'file' ? entry.position : null,
            );
            if (entry.kind === 'file') entry.position += BigInt(total);
            this.put32(nread, total);
            return ERRNO.SUCCESS;
          });
        }),
      fd_write: (fd, iovs, count, written) =>
        withEntry(fd, RIGHTS.FD_WRITE, (entry) => {
          if (entry.kind === 'dir') return ERRNO.ISDIR;
          if (entry.kind === 'stdio' && entry.stream === 0) return ERRNO.BADF;
          return guarded(() => {
            if (entry.kind === 'file' && entry.flags & FDFLAGS.APPEND)
              entry.position = fs.fstatSync(entry.fd, { bigint: true }).size;
            const total = this.writeBuffers(
              entry,
              this.buffers(iovs, count),
              entry.kind === 'file' ? entry.position : null,
            );
            if (entry.kind === 'file') entry.position += BigInt(total);
            this.put32(written, total);
            return ERRNO.SUCCESS;
          });
        }),
      fd_pread: (fd, iovs, count, offset, nread) =>
        withFile(fd, RIGHTS.FD_READ | RIGHTS.FD_SEEK, (file) => {
          this.put32(nread, this.readBuffers(file, this.buffers(iovs, count), big(offset)));
          return ERRNO.SUCCESS;
        }),
      fd_pwrite: (fd, iovs, count, offset, written) =>
        withFile(fd, RIGHTS.FD_WRITE | RIGHTS.FD_SEEK, (file) => {
          this.put32(written, this.writeBuffers(file, this.buffers(iovs, count), big(offset)));
          return ERRNO.SUCCESS;
        }),
      fd_seek: (fd, offset, whence, result) =>
        withEntry(fd, n(offset) === 0 && n(whence) === WHENCE.CUR ? RIGHTS.FD_TELL : RIGHTS.FD_SEEK, (entry) => {
          if (entry.kind === 'stdio') return ERRNO.SPIPE;
          if (entry.kind === 'dir') return ERRNO.BADF;
          return guarded(() => {
            const w = n(whence);
            if (w !== WHENCE.SET && w !== WHENCE.CUR && w !== WHENCE.END) return ERRNO.INVAL;
            const base =
              w === WHENCE.SET ? 0n : w === WHENCE.CUR ? entry.position : fs.fstatSync(entry.fd, { bigint: true }).size;
            const target = base + BigInt.asIntN(64, big(offset));
            if (target < 0n) return ERRNO.INVAL;
            entry.position = target;
            this.put64(result, target);
            return ERRNO.SUCCESS;
          });
        }),
      fd_tell: (fd, result) =>
        withEntry(fd, RIGHTS.FD_TELL, (entry) => {
          if (entry.kind !== 'file') return entry.kind === 'stdio' ? ERRNO.SPIPE : ERRNO.BADF;
          this.put64(result, entry.position);
          return ERRNO.SUCCESS;
        }),
      fd_close: (fd) =>
        withEntry(fd, 0n, (entry) => {
          if (entry.kind !== 'stdio' && entry.fd !== null) fs.closeSync(entry.fd);
          this.open.delete(n(fd));
          return ERRNO.SUCCESS;
        }),
      fd_renumber: (from, to) =>
        withEntry(from, 0n, (entry) =>
          withEntry(to, 0n, (target) => {
            if (n(from) === n(to)) return ERRNO.SUCCESS;
            if (target.kind !== 'stdio' && target.fd !== null) fs.closeSync(target.fd);
            this.open.set(n(to), entry);
            this.open.delete(n(from));
            return ERRNO.SUCCESS;
          }),
        ),
      fd_fdstat_get: (fd, stat) =>
        withEntry(fd, 0n, (entry) => {
          const at = this.memory.at(stat ?? 0);
          const view = this.memory.view();
          this.memory.bytes().fill(0, at, at + 24);
          view.setUint8(
            at + FDSTAT.filetype,
            entry.kind === 'stdio'
              ? FILETYPE.CHARACTER_DEVICE
              : entry.kind === 'dir'
                ? FILETYPE.DIRECTORY
                : FILETYPE.REGULAR_FILE,
          );
          view.setUint16(at + FDSTAT.flags, entry.flags, true);
          view.setBigUint64(at + FDSTAT.rightsBase, entry.rights.base, true);
          view.setBigUint64(at + FDSTAT.rightsInheriting, entry.rights.inheriting, true);
          return ERRNO.SUCCESS;
        }),
      fd_fdstat_set_flags: (fd, flags) =>
        withEntry(fd, RIGHTS.FD_FDSTAT_SET_FLAGS, (entry) => {
          if (n(flags) & ~0x1f) return ERRNO.INVAL;
          entry.flags = n(flags);
          return ERRNO.SUCCESS;
        }),
      fd_fdstat_set_rights: (fd, base, inheriting) =>
        withEntry(fd, 0n, (entry) => {
          // Rights only shrink.
          if ((big(base) & ~entry.rights.base) !== 0n || (big(inheriting) & ~entry.rights.inheriting) !== 0n)
            return ERRNO.NOTCAPABLE;
          entry.rights = { base: big(base), inheriting: big(inheriting) };
          return ERRNO.SUCCESS;
        }),
      fd_filestat_get: (fd, result) =>
        withEntry(fd, RIGHTS.FD_FILESTAT_GET, (entry) =>
          guarded(() => {
            this.writeFilestat(
              result,
              entry.kind === 'stdio'
                ? null
                : entry.fd !== null
                  ? fs.fstatSync(entry.fd, { bigint: true })
                  : fs.statSync(entry.host, { bigint: true }),
            );
            return ERRNO.SUCCESS;
          }),
        ),
      fd_filestat_set_size: (fd, size) =>
        withFile(fd, RIGHTS.FD_FILESTAT_SET_SIZE, (file) => {
          fs.ftruncateSync(file.fd, Number(size));
          return ERRNO.SUCCESS;
        }),
      fd_filestat_set_times: (fd, atim, mtim, flags) =>
        withEntry(fd, RIGHTS.FD_FILESTAT_SET_TIMES, (entry) =>
          guarded(() => {
            if (entry.kind === 'stdio') return ERRNO.BADF;
            const stat = () =>
              entry.fd !== null ? fs.fstatSync(entry.fd, { bigint: true }) : fs.statSync(entry.host, { bigint: true });
            const times = this.times(stat, big(atim), big(mtim), n(flags));
            if (typeof times === 'number') return times;
            if (entry.fd !== null) fs.futimesSync(entry.fd, ...times);
            else fs.utimesSync(entry.host, ...times);
            return ERRNO.SUCCESS;
          }),
        ),
      fd_advise: (fd, _offset, _length, advice) =>
        withEntry(fd, RIGHTS.FD_ADVISE, (entry) => {
          if (n(advice) > ADVICE_MAX) return ERRNO.INVAL;
          return entry.kind === 'dir' ? ERRNO.BADF : entry.kind === 'stdio' ? ERRNO.SPIPE : ERRNO.SUCCESS;
        }),
      fd_allocate: (fd, offset, length) =>
        withFile(fd, RIGHTS.FD_ALLOCATE, (file) => {
          const end = big(offset) + big(length);
          if (end > fs.fstatSync(file.fd, { bigint: true }).size) fs.ftruncateSync(file.fd, Number(end));
          return ERRNO.SUCCESS;
        }),
      fd_datasync: (fd) =>
        withEntry(fd, RIGHTS.FD_DATASYNC, (entry) =>
          entry.kind === 'stdio'
            ? ERRNO.INVAL
            : entry.fd === null
              ? ERRNO.SUCCESS
              : attempt(() => fs.fdatasyncSync(entry.fd!)),
        ),
      fd_sync: (fd) =>
        withEntry(fd, RIGHTS.FD_SYNC, (entry) =>
          entry.kind === 'stdio'
            ? ERRNO.INVAL
            : entry.fd === null
              ? ERRNO.SUCCESS
              : attempt(() => fs.fsyncSync(entry.fd!)),
        ),
      fd_prestat_get: (fd, result) => {
        const entry = this.open.get(n(fd));
        if (!entry || entry.kind !== 'dir' || !entry.preopen) return ERRNO.BADF;
        const at = this.memory.at(result ?? 0);
        this.memory.view().setUint32(at, 0, true);
        this.memory.view().setUint32(at + 4, Buffer.byteLength(entry.root.guest, 'utf8'), true);
        return ERRNO.SUCCESS;
      },
      fd_prestat_dir_name: (fd, path, length) => {
        const entry = this.open.get(n(fd));
        if (!entry || entry.kind !== 'dir' || !entry.preopen) return ERRNO.BADF;
        const name = Buffer.from(entry.root.guest, 'utf8');
        if (n(length) < name.length) return ERRNO.INVAL;
        this.memory.bytes().set(name, this.memory.at(path ?? 0));
        return ERRNO.SUCCESS;
      },
      fd_readdir: (...args) => this.readdir(args),
      path_open: (...args) => this.pathOpen(args),
      path_filestat_get: (dirFd, flags, path, length, result) => {
        const follow = (n(flags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
        const where = this.resolve(dirFd, path, length, RIGHTS.PATH_FILESTAT_GET, follow);
        if (typeof where === 'number') return where;
        return guarded(() => {
          this.writeFilestat(
            result,
            follow ? fs.statSync(where.host, { bigint: true }) : fs.lstatSync(where.host, { bigint: true }),
          );
          return ERRNO.SUCCESS;
        });
      },
      path_filestat_set_times: (dirFd, flags, path, length, atim, mtim, fstflags) => {
        const follow = (n(flags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
        return this.change(dirFd, path, length, RIGHTS.PATH_FILESTAT_SET_TIMES, follow, (host) => {
          const times = this.times(
            () => (follow ? fs.statSync(host, { bigint: true }) : fs.lstatSync(host, { bigint: true })),
            big(atim),
            big(mtim),
            n(fstflags),
          );
          if (typeof times === 'number') throw Object.assign(new Error('invalid fst_flags'), { code: 'EINVAL' });
          if (follow) fs.utimesSync(host, ...times);
          else fs.lutimesSync(host, ...times);
        });
      },
      path_create_directory: (dirFd, path, length) =>
        this.change(dirFd, path, length, RIGHTS.PATH_CREATE_DIRECTORY, false, (host) => fs.mkdirSync(host)),
      path_unlink_file: (dirFd, path, length) =>
        this.change(dirFd, path, length, RIGHTS.PATH_UNLINK_FILE, false, (host) => fs.unlinkSync(host)),
      path_remove_directory: (dirFd, path, length) =>
        this.change(dirFd, path, length, RIGHTS.PATH_REMOVE_DIRECTORY, false, (host) => fs.rmdirSync(host)),
      path_symlink: (target, targetLength, dirFd, path, length) => {
        const content = this.readString(target, targetLength);
        if (content.startsWith('/')) return ERRNO.NOTCAPABLE;
        return this.change(dirFd, path, length, RIGHTS.PATH_SYMLINK, false, (host) => fs.symlinkSync(content, host));
      },
      path_readlink: (dirFd, path, length, buffer, bufferLength, used) => {
        const where = this.resolve(dirFd, path, length, RIGHTS.PATH_READLINK, false);
        if (typeof where === 'number') return where;
        return guarded(() => {
          const content = fs.readlinkSync(where.host, { encoding: 'buffer' }).subarray(0, n(bufferLength));
          this.memory.bytes().set(content, this.memory.at(buffer ?? 0));
          this.put32(used, content.length);
          return ERRNO.SUCCESS;
        });
      },
      path_rename: (fromFd, fromPath, fromLength, toFd, toPath, toLength) => {
        const to = this.resolve(toFd, toPath, toLength, RIGHTS.PATH_RENAME_TARGET, false);
        if (typeof to === 'number') return to;
        if (!to.dir.root.writable) return ERRNO.ROFS;
        return this.change(fromFd, fromPath, fromLength, RIGHTS.PATH_RENAME_SOURCE, false, (host) =>
          fs.renameSync(host, to.host),
        );
      },
      path_link: (fromFd, flags, fromPath, fromLength, toFd, toPath, toLength) => {
        // A hard link to what a symbolic link points at is not offered (as in wasmtime and uvwasi).
        if (n(flags) & LOOKUP_SYMLINK_FOLLOW) return ERRNO.INVAL;
        const to = this.resolve(toFd, toPath, toLength, RIGHTS.PATH_LINK_TARGET, false);
        if (typeof to === 'number') return to;
        if (!to.dir.root.writable) return ERRNO.ROFS;
        return this.change(fromFd, fromPath, fromLength, RIGHTS.PATH_LINK_SOURCE, false, (host) =>
          fs.linkSync(host, to.host),
        );
      },
      // Taintlens gives a program no sockets: every descriptor it has is not one.
      sock_accept: (fd) => socket(fd),
      sock_recv: (fd) => socket(fd),
      sock_send: (fd) => socket(fd),
      sock_shutdown: (fd) => socket(fd),
    };
  }
}
