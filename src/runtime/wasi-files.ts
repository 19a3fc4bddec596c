// The WASI host's calls on open descriptors: reading and writing (stdin from bytes given up front,
// stdout/stderr to the host's capture, host files at their position or at an offset), seeking,
// closing and renumbering, descriptor flags and rights, file status and times, advice, allocation
// and syncing. The descriptors themselves are wasi-descriptors.ts's.
import * as fs from 'node:fs';
import { ADVICE_MAX, ERRNO, FDFLAGS, FDSTAT, FILETYPE, RIGHTS, WHENCE } from './wasi-abi.js';
import {
  attempt,
  big,
  guarded,
  n,
  newTimes,
  type Arg,
  type Descriptors,
  type Entry,
  type FileEntry,
  type WasiFunction,
} from './wasi-descriptors.js';

/** The guest buffers of an iovec array (ciovec and iovec share the layout). */
function buffers(d: Descriptors, iovs: Arg, count: Arg): Uint8Array[] {
  const view = d.memory.view();
  const bytes = d.memory.bytes();
  const list: Uint8Array[] = [];
  for (let i = 0; i < n(count); i++) {
    const base = d.memory.at(view.getUint32(d.memory.at(iovs ?? 0) + 8 * i, true));
    list.push(bytes.subarray(base, base + view.getUint32(d.memory.at(iovs ?? 0) + 8 * i + 4, true)));
  }
  return list;
}

/** Reads into the buffers at `offset` (a file) or from stdin, returning the byte count. */
function readBuffers(d: Descriptors, entry: Entry, targets: Uint8Array[], offset: bigint | null): number {
  let total = 0;
  for (const target of targets) {
    let got: number;
    if (entry.kind === 'stdio') {
      const chunk = d.stdin.subarray(d.stdinPosition, d.stdinPosition + target.length);
      target.set(chunk);
      d.stdinPosition += chunk.length;
      got = chunk.length;
    } else {
      got = fs.readSync((entry as FileEntry).fd, target, 0, target.length, offset! + BigInt(total));
    }
    total += got;
    if (got < target.length) break;
  }
  return total;
}

function writeBuffers(d: Descriptors, entry: Entry, sources: Uint8Array[], offset: bigint | null): number {
  let total = 0;
  for (const source of sources) {
    if (entry.kind === 'stdio') {
      d.output(entry.stream as 1 | 2, source.slice());
      total += source.length;
    } else {
      total += fs.writeSync((entry as FileEntry).fd, source, 0, source.length, Number(offset! + BigInt(total)));
    }
  }
  return total;
}

/** Every fd_* function of wasi_snapshot_preview1 but the directory ones (wasi-directories.ts). */
export function fileFunctions(d: Descriptors): Record<string, WasiFunction> {
  const withFile = (fd: Arg, right: bigint, body: (file: FileEntry) => number): number =>
    d.withEntry(fd, right, (entry) =>
      entry.kind === 'file' ? guarded(() => body(entry)) : entry.kind === 'dir' ? ERRNO.ISDIR : ERRNO.SPIPE,
    );
  return {
    fd_read: (fd, iovs, count, nread) =>
      d.withEntry(fd, RIGHTS.FD_READ, (entry) => {
        if (entry.kind === 'dir') return ERRNO.ISDIR;
        if (entry.kind === 'stdio' && entry.stream !== 0) return ERRNO.BADF;
        return guarded(() => {
          const total = readBuffers(d, entry, buffers(d, iovs, count), entry.kind === 'file' ? entry.position : null);
          if (entry.kind === 'file') entry.position += BigInt(total);
          d.put32(nread, total);
          return ERRNO.SUCCESS;
        });
      }),
    fd_write: (fd, iovs, count, written) =>
      d.withEntry(fd, RIGHTS.FD_WRITE, (entry) => {
        if (entry.kind === 'dir') return ERRNO.ISDIR;
        if (entry.kind === 'stdio' && entry.stream === 0) return ERRNO.BADF;
        return guarded(() => {
          if (entry.kind === 'file' && entry.flags & FDFLAGS.APPEND)
            entry.position = fs.fstatSync(entry.fd, { bigint: true }).size;
          const total = writeBuffers(d, entry, buffers(d, iovs, count), entry.kind === 'file' ? entry.position : null);
          if (entry.kind === 'file') entry.position += BigInt(total);
          d.put32(written, total);
          return ERRNO.SUCCESS;
        });
      }),
    fd_pread: (fd, iovs, count, offset, nread) =>
      withFile(fd, RIGHTS.FD_READ | RIGHTS.FD_SEEK, (file) => {
        d.put32(nread, readBuffers(d, file, buffers(d, iovs, count), big(offset)));
        return ERRNO.SUCCESS;
      }),
    fd_pwrite: (fd, iovs, count, offset, written) =>
      withFile(fd, RIGHTS.FD_WRITE | RIGHTS.FD_SEEK, (file) => {
        d.put32(written, writeBuffers(d, file, buffers(d, iovs, count), big(offset)));
        return ERRNO.SUCCESS;
      }),
    fd_seek: (fd, offset, whence, result) =>
      d.withEntry(fd, n(offset) === 0 && n(whence) === WHENCE.CUR ? RIGHTS.FD_TELL : RIGHTS.FD_SEEK, (entry) => {
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
          d.put64(result, target);
          return ERRNO.SUCCESS;
        });
      }),
    fd_tell: (fd, result) =>
      d.withEntry(fd, RIGHTS.FD_TELL, (entry) => {
        if (entry.kind !== 'file') return entry.kind === 'stdio' ? ERRNO.SPIPE : ERRNO.BADF;
        d.put64(result, entry.position);
        return ERRNO.SUCCESS;
      }),
    fd_close: (fd) =>
      d.withEntry(fd, 0n, (entry) => {
        if (entry.kind !== 'stdio' && entry.fd !== null) fs.closeSync(entry.fd);
        d.open.delete(n(fd));
        return ERRNO.SUCCESS;
      }),
    fd_renumber: (from, to) =>
      d.withEntry(from, 0n, (entry) =>
        d.withEntry(to, 0n, (target) => {
          if (n(from) === n(to)) return ERRNO.SUCCESS;
          if (target.kind !== 'stdio' && target.fd !== null) fs.closeSync(target.fd);
          d.open.set(n(to), entry);
          d.open.delete(n(from));
          return ERRNO.SUCCESS;
        }),
      ),
    fd_fdstat_get: (fd, stat) =>
      d.withEntry(fd, 0n, (entry) => {
        const at = d.memory.at(stat ?? 0);
        const view = d.memory.view();
        d.memory.bytes().fill(0, at, at + 24);
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
      d.withEntry(fd, RIGHTS.FD_FDSTAT_SET_FLAGS, (entry) => {
        if (n(flags) & ~0x1f) return ERRNO.INVAL;
        entry.flags = n(flags);
        return ERRNO.SUCCESS;
      }),
    fd_fdstat_set_rights: (fd, base, inheriting) =>
      d.withEntry(fd, 0n, (entry) => {
        // Rights only shrink.
        if ((big(base) & ~entry.rights.base) !== 0n || (big(inheriting) & ~entry.rights.inheriting) !== 0n)
          return ERRNO.NOTCAPABLE;
        entry.rights = { base: big(base), inheriting: big(inheriting) };
        return ERRNO.SUCCESS;
      }),
    fd_filestat_get: (fd, result) =>
      d.withEntry(fd, RIGHTS.FD_FILESTAT_GET, (entry) =>
        guarded(() => {
          d.writeFilestat(
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
      d.withEntry(fd, RIGHTS.FD_FILESTAT_SET_TIMES, (entry) =>
        guarded(() => {
          if (entry.kind === 'stdio') return ERRNO.BADF;
          const stat = () =>
            entry.fd !== null ? fs.fstatSync(entry.fd, { bigint: true }) : fs.statSync(entry.host, { bigint: true });
          const times = newTimes(stat, big(atim), big(mtim), n(flags));
          if (typeof times === 'number') return times;
          if (entry.fd !== null) fs.futimesSync(entry.fd, ...times);
          else fs.utimesSync(entry.host, ...times);
          return ERRNO.SUCCESS;
        }),
      ),
    fd_advise: (fd, _offset, _length, advice) =>
      d.withEntry(fd, RIGHTS.FD_ADVISE, (entry) => {
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
      d.withEntry(fd, RIGHTS.FD_DATASYNC, (entry) =>
        entry.kind === 'stdio'
          ? ERRNO.INVAL
          : entry.fd === null
            ? ERRNO.SUCCESS
            : attempt(() => fs.fdatasyncSync(entry.fd!)),
      ),
    fd_sync: (fd) =>
      d.withEntry(fd, RIGHTS.FD_SYNC, (entry) =>
        entry.kind === 'stdio'
          ? ERRNO.INVAL
          : entry.fd === null
            ? ERRNO.SUCCESS
            : attempt(() => fs.fsyncSync(entry.fd!)),
      ),
  };
}
