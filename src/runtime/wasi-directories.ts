// The WASI host's directory calls on descriptors: fd_readdir (entries with `.` and `..`, cut off
// where the guest's buffer ends), and fd_prestat_get / fd_prestat_dir_name, which tell the program
// its preopened directories (`--dir HOST[:GUEST]`) by their guest names.
import * as fs from 'node:fs';
import { join as joinHost, dirname } from 'node:path';
import { DIRENT, ERRNO, FILETYPE, RIGHTS, errnoOf } from './wasi-abi.js';
import { big, fileType, n, type Args, type Descriptors, type WasiFunction } from './wasi-descriptors.js';

function readdir(d: Descriptors, args: Args): number {
  const [fd, buffer, length, cookie, used] = args;
  const dir = d.entry(fd, RIGHTS.FD_READDIR);
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
  d.memory.bytes().set(out.subarray(0, written), d.memory.at(buffer ?? 0));
  d.put32(used, written);
  return ERRNO.SUCCESS;
}

/** fd_readdir and the preopen calls. */
export function directoryFunctions(d: Descriptors): Record<string, WasiFunction> {
  return {
    fd_prestat_get: (fd, result) => {
      const entry = d.open.get(n(fd));
      if (!entry || entry.kind !== 'dir' || !entry.preopen) return ERRNO.BADF;
      const at = d.memory.at(result ?? 0);
      d.memory.view().setUint32(at, 0, true);
      d.memory.view().setUint32(at + 4, Buffer.byteLength(entry.root.guest, 'utf8'), true);
      return ERRNO.SUCCESS;
    },
    fd_prestat_dir_name: (fd, path, length) => {
      const entry = d.open.get(n(fd));
      if (!entry || entry.kind !== 'dir' || !entry.preopen) return ERRNO.BADF;
      const name = Buffer.from(entry.root.guest, 'utf8');
      if (n(length) < name.length) return ERRNO.INVAL;
      d.memory.bytes().set(name, d.memory.at(path ?? 0));
      return ERRNO.SUCCESS;
    },
    fd_readdir: (...args) => readdir(d, args),
  };
}
