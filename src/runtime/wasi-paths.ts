// The WASI host's path_* calls: a path is resolved inside the preopen of the directory it is
// relative to; a path, or a symbolic link, that leads out of it is refused (NOTCAPABLE), as a WASI
// runtime must. A call that changes a read-only preopen (`--dir` without `-rw`) answers ROFS.
import * as fs from 'node:fs';
import { posix, resolve as resolveHost, join as joinHost, dirname, basename, sep } from 'node:path';
import {
  DIRECTORY_RIGHTS,
  ERRNO,
  FDFLAGS,
  FILE_RIGHTS,
  LOOKUP_SYMLINK_FOLLOW,
  OFLAGS,
  RIGHTS,
  WRITE_RIGHTS,
  errnoOf,
} from './wasi-abi.js';
import type { Preopen } from './protocol.js';
import {
  attempt,
  big,
  guarded,
  n,
  newTimes,
  type Arg,
  type Args,
  type Descriptors,
  type DirEntry,
  type Entry,
  type WasiFunction,
} from './wasi-descriptors.js';

export class WasiPaths {
  private readonly realRoots = new Map<Preopen, string>();

  constructor(private readonly d: Descriptors) {}

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
    dirFd: Arg,
    pointer: Arg,
    length: Arg,
    right: bigint,
    follow: boolean,
  ): { dir: DirEntry; host: string; inner: string } | number {
    const dir = this.d.entry(dirFd, right);
    if (typeof dir === 'number') return dir;
    if (dir.kind !== 'dir') return ERRNO.NOTDIR;
    const path = this.d.readString(pointer, length);
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

  /** A path call that changes the preopen: refused (ROFS) under a read-only one. */
  private change(
    dirFd: Arg,
    path: Arg,
    length: Arg,
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
    const number = this.d.lowestFreeFd();
    this.d.open.set(number, entry);
    this.d.put32(result, number);
    return ERRNO.SUCCESS;
  }

  /** Every path_* function of wasi_snapshot_preview1. */
  functions(): Record<string, WasiFunction> {
    const d = this.d;
    return {
      path_open: (...args) => this.pathOpen(args),
      path_filestat_get: (dirFd, flags, path, length, result) => {
        const follow = (n(flags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
        const where = this.resolve(dirFd, path, length, RIGHTS.PATH_FILESTAT_GET, follow);
        if (typeof where === 'number') return where;
        return guarded(() => {
          d.writeFilestat(
            result,
            follow ? fs.statSync(where.host, { bigint: true }) : fs.lstatSync(where.host, { bigint: true }),
          );
          return ERRNO.SUCCESS;
        });
      },
      path_filestat_set_times: (dirFd, flags, path, length, atim, mtim, fstflags) => {
        const follow = (n(flags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
        return this.change(dirFd, path, length, RIGHTS.PATH_FILESTAT_SET_TIMES, follow, (host) => {
          const times = newTimes(
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
        const content = d.readString(target, targetLength);
        if (content.startsWith('/')) return ERRNO.NOTCAPABLE;
        return this.change(dirFd, path, length, RIGHTS.PATH_SYMLINK, false, (host) => fs.symlinkSync(content, host));
      },
      path_readlink: (dirFd, path, length, buffer, bufferLength, used) => {
        const where = this.resolve(dirFd, path, length, RIGHTS.PATH_READLINK, false);
        if (typeof where === 'number') return where;
        return guarded(() => {
          const content = fs.readlinkSync(where.host, { encoding: 'buffer' }).subarray(0, n(bufferLength));
          d.memory.bytes().set(content, d.memory.at(buffer ?? 0));
          d.put32(used, content.length);
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
    };
  }
}
