// The numbers of wasi_snapshot_preview1 the host speaks: errno values, file types, flags, rights
// and the byte layouts of the records it writes into guest memory (witx, preview1).

export const ERRNO = {
  SUCCESS: 0,
  ACCES: 2,
  BADF: 8,
  EXIST: 20,
  FAULT: 21,
  INVAL: 28,
  IO: 29,
  ISDIR: 31,
  LOOP: 32,
  NAMETOOLONG: 37,
  NOENT: 44,
  NOSYS: 52,
  NOTDIR: 54,
  NOTEMPTY: 55,
  NOTSOCK: 57,
  NOTSUP: 58,
  PERM: 63,
  ROFS: 69,
  SPIPE: 70,
  XDEV: 75,
  NOTCAPABLE: 76,
} as const;

export const FILETYPE = {
  UNKNOWN: 0,
  BLOCK_DEVICE: 1,
  CHARACTER_DEVICE: 2,
  DIRECTORY: 3,
  REGULAR_FILE: 4,
  SYMBOLIC_LINK: 7,
} as const;
export const OFLAGS = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 } as const;
export const FDFLAGS = { APPEND: 1, DSYNC: 2, NONBLOCK: 4, RSYNC: 8, SYNC: 16 } as const;
export const LOOKUP_SYMLINK_FOLLOW = 1;
export const FSTFLAGS = { ATIM: 1, ATIM_NOW: 2, MTIM: 4, MTIM_NOW: 8 } as const;
export const WHENCE = { SET: 0, CUR: 1, END: 2 } as const;
export const ADVICE_MAX = 5;

const bit = (n: number) => 1n << BigInt(n);
export const RIGHTS = {
  FD_DATASYNC: bit(0),
  FD_READ: bit(1),
  FD_SEEK: bit(2),
  FD_FDSTAT_SET_FLAGS: bit(3),
  FD_SYNC: bit(4),
  FD_TELL: bit(5),
  FD_WRITE: bit(6),
  FD_ADVISE: bit(7),
  FD_ALLOCATE: bit(8),
  PATH_CREATE_DIRECTORY: bit(9),
  PATH_CREATE_FILE: bit(10),
  PATH_LINK_SOURCE: bit(11),
  PATH_LINK_TARGET: bit(12),
  PATH_OPEN: bit(13),
  FD_READDIR: bit(14),
  PATH_READLINK: bit(15),
  PATH_RENAME_SOURCE: bit(16),
  PATH_RENAME_TARGET: bit(17),
  PATH_FILESTAT_GET: bit(18),
  PATH_FILESTAT_SET_SIZE: bit(19),
  PATH_FILESTAT_SET_TIMES: bit(20),
  FD_FILESTAT_GET: bit(21),
  FD_FILESTAT_SET_SIZE: bit(22),
  FD_FILESTAT_SET_TIMES: bit(23),
  PATH_SYMLINK: bit(24),
  PATH_REMOVE_DIRECTORY: bit(25),
  PATH_UNLINK_FILE: bit(26),
  POLL_FD_READWRITE: bit(27),
  SOCK_SHUTDOWN: bit(28),
  SOCK_ACCEPT: bit(29),
} as const;

/** What a regular file, a directory and a character device (stdio) may do, as uvwasi grants them. */
export const FILE_RIGHTS =
  RIGHTS.FD_DATASYNC |
  RIGHTS.FD_READ |
  RIGHTS.FD_SEEK |
  RIGHTS.FD_FDSTAT_SET_FLAGS |
  RIGHTS.FD_SYNC |
  RIGHTS.FD_TELL |
  RIGHTS.FD_WRITE |
  RIGHTS.FD_ADVISE |
  RIGHTS.FD_ALLOCATE |
  RIGHTS.FD_FILESTAT_GET |
  RIGHTS.FD_FILESTAT_SET_SIZE |
  RIGHTS.FD_FILESTAT_SET_TIMES |
  RIGHTS.POLL_FD_READWRITE;
export const DIRECTORY_RIGHTS =
  RIGHTS.FD_FDSTAT_SET_FLAGS |
  RIGHTS.FD_SYNC |
  RIGHTS.FD_ADVISE |
  RIGHTS.PATH_CREATE_DIRECTORY |
  RIGHTS.PATH_CREATE_FILE |
  RIGHTS.PATH_LINK_SOURCE |
  RIGHTS.PATH_LINK_TARGET |
  RIGHTS.PATH_OPEN |
  RIGHTS.FD_READDIR |
  RIGHTS.PATH_READLINK |
  RIGHTS.PATH_RENAME_SOURCE |
  RIGHTS.PATH_RENAME_TARGET |
  RIGHTS.PATH_FILESTAT_GET |
  RIGHTS.PATH_FILESTAT_SET_SIZE |
  RIGHTS.PATH_FILESTAT_SET_TIMES |
  RIGHTS.FD_FILESTAT_GET |
  RIGHTS.FD_FILESTAT_SET_TIMES |
  RIGHTS.PATH_SYMLINK |
  RIGHTS.PATH_REMOVE_DIRECTORY |
  RIGHTS.PATH_UNLINK_FILE |
  RIGHTS.POLL_FD_READWRITE;
export const STDIO_RIGHTS =
  RIGHTS.FD_READ | RIGHTS.FD_FDSTAT_SET_FLAGS | RIGHTS.FD_WRITE | RIGHTS.FD_FILESTAT_GET | RIGHTS.POLL_FD_READWRITE;
/** Rights that let a descriptor change what it refers to (refused under a read-only preopen). */
export const WRITE_RIGHTS = RIGHTS.FD_WRITE | RIGHTS.FD_DATASYNC | RIGHTS.FD_ALLOCATE | RIGHTS.FD_FILESTAT_SET_SIZE;

/** Byte offsets of `filestat`, `fdstat`, `dirent`, `subscription` and `event`. */
export const FILESTAT = { dev: 0, ino: 8, filetype: 16, nlink: 24, size: 32, atim: 40, mtim: 48, ctim: 56 } as const;
export const FDSTAT = { filetype: 0, flags: 2, rightsBase: 8, rightsInheriting: 16 } as const;
export const DIRENT = { next: 0, ino: 8, namlen: 16, type: 20, bytes: 24 } as const;
export const SUBSCRIPTION = {
  userdata: 0,
  tag: 8,
  clockId: 16,
  timeout: 24,
  clockFlags: 40,
  fd: 16,
  bytes: 48,
} as const;
export const EVENT = { userdata: 0, error: 8, type: 10, nbytes: 16, flags: 24, bytes: 32 } as const;
export const EVENTTYPE = { CLOCK: 0, FD_READ: 1, FD_WRITE: 2 } as const;
export const SUBCLOCK_ABSTIME = 1;

/** The wasi_snapshot_preview1 errno of a failed node:fs call. */
export function errnoOf(error: unknown): number {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return ERRNO.NOENT;
    case 'EACCES':
      return ERRNO.ACCES;
    case 'EPERM':
      return ERRNO.PERM;
    case 'EEXIST':
      return ERRNO.EXIST;
    case 'EISDIR':
      return ERRNO.ISDIR;
    case 'ENOTDIR':
      return ERRNO.NOTDIR;
    case 'ENOTEMPTY':
      return ERRNO.NOTEMPTY;
    case 'EROFS':
      return ERRNO.ROFS;
    case 'ELOOP':
      return ERRNO.LOOP;
    case 'EINVAL':
      return ERRNO.INVAL;
    case 'EBADF':
      return ERRNO.BADF;
    case 'ENAMETOOLONG':
      return ERRNO.NAMETOOLONG;
    case 'EXDEV':
      return ERRNO.XDEV;
    case 'ESPIPE':
      return ERRNO.SPIPE;
    case 'ENOTSUP':
    case 'EOPNOTSUPP':
      return ERRNO.NOTSUP;
    default:
      return ERRNO.IO;
  }
}
