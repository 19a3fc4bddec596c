// The WASI host's files: stdin served from bytes given up front, and preopened host directories
// (`--dir HOST[:GUEST]`, read-only unless opened with `--dir-rw`) through path_open, fd_read,
// fd_write, fd_seek, fd_readdir and the stat calls. Paths are resolved inside their preopen: a
// path that climbs out of it is refused (NOTCAPABLE), as a WASI runtime must.
import * as fs from 'node:fs';
import { posix, resolve as resolveHost, join as joinHost } from 'node:path';
import type { Preopen } from './protocol.js';

export const ERRNO = {
  SUCCESS: 0, ACCES: 2, BADF: 8, EXIST: 20, INVAL: 28, IO: 29, ISDIR: 31, NOENT: 44, NOSYS: 52,
  NOTDIR: 54, NOTEMPTY: 55, ROFS: 69, SPIPE: 70, NOTCAPABLE: 76,
} as const;

const FILETYPE = { CHARACTER_DEVICE: 2, DIRECTORY: 3, REGULAR_FILE: 4, SYMBOLIC_LINK: 7 } as const;
const OFLAGS = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 } as const;
const FDFLAGS_APPEND = 1;
const RIGHT_FD_WRITE = 1n << 6n;
const ALL_RIGHTS = 0x1fffffffn;

/** What the WASI functions need of guest memory (program addresses, offset by programBase). */
export interface GuestMemory {
  bytes(): Uint8Array;
  view(): DataView;
  at(pointer: number | bigint): number;
}

interface OpenFile {
  kind: 'file' | 'dir';
  host: string;
  /** Node file descriptor (files only). */
  fd: number | null;
  position: bigint;
  append: boolean;
  writable: boolean;
  /** The preopen it was opened under (for path_open relative to it). */
  root: Preopen;
  /** Its path inside the preopen, in guest form ('.' for the preopen itself). */
  inner: string;
}

const n = (value: number | bigint | undefined) => Number(value ?? 0);

function errnoOf(error: unknown): number {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT': return ERRNO.NOENT;
    case 'EACCES': case 'EPERM': return ERRNO.ACCES;
    case 'EEXIST': return ERRNO.EXIST;
    case 'EISDIR': return ERRNO.ISDIR;
    case 'ENOTDIR': return ERRNO.NOTDIR;
    case 'ENOTEMPTY': return ERRNO.NOTEMPTY;
    case 'EROFS': return ERRNO.ROFS;
    default: return ERRNO.IO;
  }
}

export class WasiFiles {
  private readonly open = new Map<number, OpenFile>();
  private nextFd: number;
  private stdinPosition = 0;
  private readonly preopens: number;

  constructor(private readonly memory: GuestMemory, preopens: readonly Preopen[], private readonly stdin: Uint8Array) {
    preopens.forEach((root, i) => {
      this.open.set(3 + i, { kind: 'dir', host: resolveHost(root.host), fd: null, position: 0n, append: false, writable: root.writable, root, inner: '.' });
    });
    this.preopens = preopens.length;
    this.nextFd = 3 + preopens.length;
  }

  /** Closes every host file the program left open (after each repetition). */
  closeAll(): void {
    for (const file of this.open.values()) if (file.fd !== null) fs.closeSync(file.fd);
    this.open.clear();
  }

  private readString(pointer: number | bigint, length: number | bigint): string {
    const at = this.memory.at(pointer);
    return Buffer.from(this.memory.bytes().subarray(at, at + n(length))).toString('utf8');
  }

  /** Host path of `path` relative to directory `dirFd`, or an errno when it leaves the preopen. */
  private resolve(dirFd: number, path: string): { file: OpenFile; host: string; inner: string } | number {
    const dir = this.open.get(dirFd);
    if (!dir || dir.kind !== 'dir') return ERRNO.BADF;
    if (path.startsWith('/')) return ERRNO.NOTCAPABLE;
    const inner = posix.normalize(posix.join(dir.inner, path));
    if (inner === '..' || inner.startsWith('../')) return ERRNO.NOTCAPABLE;
    return { file: dir, host: joinHost(resolveHost(dir.root.host), inner), inner };
  }

  private readInto(iovs: number | bigint, count: number | bigint, read: (target: Uint8Array) => number): number {
    const view = this.memory.view();
    const bytes = this.memory.bytes();
    let total = 0;
    for (let i = 0; i < n(count); i++) {
      const base = this.memory.at(view.getUint32(this.memory.at(iovs) + 8 * i, true));
      const length = view.getUint32(this.memory.at(iovs) + 8 * i + 4, true);
      const got = read(bytes.subarray(base, base + length));
      total += got;
      if (got < length) break;
    }
    return total;
  }

  private writeFilestat(pointer: number | bigint, stat: fs.Stats): void {
    const view = this.memory.view();
    const at = this.memory.at(pointer);
    const type = stat.isDirectory() ? FILETYPE.DIRECTORY : stat.isSymbolicLink() ? FILETYPE.SYMBOLIC_LINK : FILETYPE.REGULAR_FILE;
    view.setBigUint64(at, BigInt(stat.dev), true);
    view.setBigUint64(at + 8, BigInt(stat.ino), true);
    view.setUint8(at + 16, type);
    view.setBigUint64(at + 24, BigInt(stat.nlink), true);
    view.setBigUint64(at + 32, BigInt(stat.size), true);
    view.setBigUint64(at + 40, BigInt(Math.round(stat.atimeMs)) * 1_000_000n, true);
    view.setBigUint64(at + 48, BigInt(Math.round(stat.mtimeMs)) * 1_000_000n, true);
    view.setBigUint64(at + 56, BigInt(Math.round(stat.ctimeMs)) * 1_000_000n, true);
  }

  /** fd_read for stdin and open files, fd_write for writable files; stdout/stderr stay with the caller. */
  functions(): Record<string, (...args: Array<number | bigint>) => number> {
    const view = () => this.memory.view();
    const put32 = (pointer: number | bigint, value: number) => view().setUint32(this.memory.at(pointer), value, true);
    return {
      fd_read: (fd, iovs, count, nread) => {
        if (n(fd) === 0) {
          const total = this.readInto(iovs!, count!, (target) => {
            const chunk = this.stdin.subarray(this.stdinPosition, this.stdinPosition + target.length);
            target.set(chunk);
            this.stdinPosition += chunk.length;
            return chunk.length;
          });
          put32(nread!, total);
          return ERRNO.SUCCESS;
        }
        const file = this.open.get(n(fd));
        if (!file) return ERRNO.BADF;
        if (file.kind === 'dir') return ERRNO.ISDIR;
        try {
          const total = this.readInto(iovs!, count!, (target) => {
            const got = fs.readSync(file.fd!, target, 0, target.length, file.position);
            file.position += BigInt(got);
            return got;
          });
          put32(nread!, total);
          return ERRNO.SUCCESS;
        } catch (error) {
          return errnoOf(error);
        }
      },
      fd_write: (fd, iovs, count, written) => {
        const file = this.open.get(n(fd));
        if (!file) return ERRNO.BADF;
        if (file.kind === 'dir') return ERRNO.ISDIR;
        if (!file.writable) return ERRNO.BADF;
        try {
          if (file.append) file.position = BigInt(fs.fstatSync(file.fd!).size);
          const total = this.readInto(iovs!, count!, (source) => {
            const put = fs.writeSync(file.fd!, source, 0, source.length, Number(file.position));
            file.position += BigInt(put);
            return put;
          });
          put32(written!, total);
          return ERRNO.SUCCESS;
        } catch (error) {
          return errnoOf(error);
        }
      },
      fd_seek: (fd, offset, whence, result) => {
        if (n(fd) <= 2) return ERRNO.SPIPE;
        const file = this.open.get(n(fd));
        if (!file || file.kind === 'dir') return ERRNO.BADF;
        const base = n(whence) === 0 ? 0n : n(whence) === 1 ? file.position : BigInt(fs.fstatSync(file.fd!).size);
        const target = base + BigInt.asIntN(64, BigInt(offset!));
        if (target < 0n) return ERRNO.INVAL;
        file.position = target;
        view().setBigUint64(this.memory.at(result!), target, true);
        return ERRNO.SUCCESS;
      },
      fd_tell: (fd, result) => {
        const file = this.open.get(n(fd));
        if (!file || file.kind === 'dir') return n(fd) <= 2 ? ERRNO.SPIPE : ERRNO.BADF;
        view().setBigUint64(this.memory.at(result!), file.position, true);
        return ERRNO.SUCCESS;
      },
      fd_close: (fd) => {
        if (n(fd) <= 2) return ERRNO.SUCCESS;
        const file = this.open.get(n(fd));
        if (!file) return ERRNO.BADF;
        if (file.fd !== null) fs.closeSync(file.fd);
        this.open.delete(n(fd));
        return ERRNO.SUCCESS;
      },
      fd_fdstat_get: (fd, stat) => {
        const at = this.memory.at(stat!);
        const file = this.open.get(n(fd));
        if (n(fd) > 2 && !file) return ERRNO.BADF;
        const type = n(fd) <= 2 ? FILETYPE.CHARACTER_DEVICE : file!.kind === 'dir' ? FILETYPE.DIRECTORY : FILETYPE.REGULAR_FILE;
        view().setUint8(at, type);
        view().setUint16(at + 2, file?.append ? FDFLAGS_APPEND : 0, true);
        view().setBigUint64(at + 8, ALL_RIGHTS, true);
        view().setBigUint64(at + 16, ALL_RIGHTS, true);
        return ERRNO.SUCCESS;
      },
      fd_fdstat_set_flags: (fd) => (n(fd) <= 2 || this.open.has(n(fd)) ? ERRNO.SUCCESS : ERRNO.BADF),
      fd_filestat_get: (fd, result) => {
        const file = this.open.get(n(fd));
        if (!file) return n(fd) <= 2 ? ERRNO.SUCCESS : ERRNO.BADF;
        try {
          this.writeFilestat(result!, file.fd !== null ? fs.fstatSync(file.fd) : fs.statSync(file.host));
          return ERRNO.SUCCESS;
        } catch (error) {
          return errnoOf(error);
        }
      },
      fd_prestat_get: (fd, result) => {
        const file = this.open.get(n(fd));
        if (!file || n(fd) >= 3 + this.preopens) return ERRNO.BADF;
        const at = this.memory.at(result!);
        view().setUint8(at, 0);
        view().setUint32(at + 4, Buffer.byteLength(file.root.guest, 'utf8'), true);
        return ERRNO.SUCCESS;
      },
      fd_prestat_dir_name: (fd, path, length) => {
        const file = this.open.get(n(fd));
        if (!file || n(fd) >= 3 + this.preopens) return ERRNO.BADF;
        const name = Buffer.from(file.root.guest, 'utf8').subarray(0, n(length));
        this.memory.bytes().set(name, this.memory.at(path!));
        return ERRNO.SUCCESS;
      },
      path_open: (dirFd, _lookupFlags, path, pathLength, oflags, rightsBase, _inheriting, fdflags, result) => {
        const where = this.resolve(n(dirFd), this.readString(path!, pathLength!));
        if (typeof where === 'number') return where;
        const wantsWrite = (BigInt(rightsBase!) & RIGHT_FD_WRITE) !== 0n || (n(oflags) & (OFLAGS.CREAT | OFLAGS.TRUNC)) !== 0 || (n(fdflags) & FDFLAGS_APPEND) !== 0;
        if (wantsWrite && !where.file.root.writable) return ERRNO.ROFS;
        try {
          const exists = fs.existsSync(where.host);
          if (exists && (n(oflags) & OFLAGS.EXCL) && (n(oflags) & OFLAGS.CREAT)) return ERRNO.EXIST;
          const isDir = exists && fs.statSync(where.host).isDirectory();
          if ((n(oflags) & OFLAGS.DIRECTORY) && !isDir) return exists ? ERRNO.NOTDIR : ERRNO.NOENT;
          let entry: OpenFile;
          if (isDir) {
            if (wantsWrite && (BigInt(rightsBase!) & RIGHT_FD_WRITE) !== 0n && (n(oflags) & OFLAGS.DIRECTORY) === 0) return ERRNO.ISDIR;
            entry = { kind: 'dir', host: where.host, fd: null, position: 0n, append: false, writable: where.file.root.writable, root: where.file.root, inner: where.inner };
          } else {
            if (!exists && (n(oflags) & OFLAGS.CREAT) === 0) return ERRNO.NOENT;
            let flags = wantsWrite ? fs.constants.O_RDWR : fs.constants.O_RDONLY;
            if (n(oflags) & OFLAGS.CREAT) flags |= fs.constants.O_CREAT;
            if (n(oflags) & OFLAGS.TRUNC) flags |= fs.constants.O_TRUNC;
            const fd = fs.openSync(where.host, flags, 0o644);
            entry = { kind: 'file', host: where.host, fd, position: 0n, append: (n(fdflags) & FDFLAGS_APPEND) !== 0, writable: wantsWrite, root: where.file.root, inner: where.inner };
          }
          const fd = this.nextFd++;
          this.open.set(fd, entry);
          put32(result!, fd);
          return ERRNO.SUCCESS;
        } catch (error) {
          return errnoOf(error);
        }
      },
      path_filestat_get: (dirFd, _flags, path, pathLength, result) => {
        const where = this.resolve(n(dirFd), this.readString(path!, pathLength!));
        if (typeof where === 'number') return where;
        try {
          this.writeFilestat(result!, fs.statSync(where.host));
          return ERRNO.SUCCESS;
        } catch (error) {
          return errnoOf(error);
        }
      },
      fd_readdir: (fd, buffer, length, cookie, used) => {
        const dir = this.open.get(n(fd));
        if (!dir || dir.kind !== 'dir') return ERRNO.BADF;
        let names: fs.Dirent[];
        try {
          names = fs.readdirSync(dir.host, { withFileTypes: true });
        } catch (error) {
          return errnoOf(error);
        }
        const bytes = this.memory.bytes();
        const start = this.memory.at(buffer!);
        const room = n(length);
        const out = Buffer.alloc(room);
        let written = 0;
        for (let i = n(cookie); i < names.length && written < room; i++) {
          const entry = names[i]!;
          const name = Buffer.from(entry.name, 'utf8');
          const header = Buffer.alloc(24);
          header.writeBigUInt64LE(BigInt(i + 1), 0);
          header.writeBigUInt64LE(0n, 8);
          header.writeUInt32LE(name.length, 16);
          header.writeUInt8(entry.isDirectory() ? FILETYPE.DIRECTORY : entry.isSymbolicLink() ? FILETYPE.SYMBOLIC_LINK : FILETYPE.REGULAR_FILE, 20);
          const record = Buffer.concat([header, name]);
          const take = Math.min(record.length, room - written);
          record.copy(out, written, 0, take);
          written += take;
        }
        bytes.set(out.subarray(0, written), start);
        put32(used!, written);
        return ERRNO.SUCCESS;
      },
      path_create_directory: (dirFd, path, pathLength) => this.mutate(dirFd, path, pathLength, (host) => fs.mkdirSync(host)),
      path_unlink_file: (dirFd, path, pathLength) => this.mutate(dirFd, path, pathLength, (host) => fs.unlinkSync(host)),
      path_remove_directory: (dirFd, path, pathLength) => this.mutate(dirFd, path, pathLength, (host) => fs.rmdirSync(host)),
    };
  }

  private mutate(dirFd: number | bigint | undefined, path: number | bigint | undefined, length: number | bigint | undefined, change: (host: string) => void): number {
    const where = this.resolve(n(dirFd), this.readString(path!, length!));
    if (typeof where === 'number') return where;
    if (!where.file.root.writable) return ERRNO.ROFS;
    try {
      change(where.host);
      return ERRNO.SUCCESS;
    } catch (error) {
      return errnoOf(error);
    }
  }
}
