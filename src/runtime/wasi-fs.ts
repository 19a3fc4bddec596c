// The WASI host's file system: stdin served from bytes given up front, stdout/stderr handed to the
// host's capture, and preopened host directories (`--dir HOST[:GUEST]`, read-only unless opened
// with `--dir-rw`) with every fd_* and path_* call of wasi_snapshot_preview1 that node:wasi has.
// By concept: the descriptor table (wasi-descriptors.ts), calls on open files and streams
// (wasi-files.ts), on directories (wasi-directories.ts) and on paths (wasi-paths.ts).
import { ERRNO } from './wasi-abi.js';
import type { Preopen } from './protocol.js';
import { Descriptors, n, type Arg, type GuestMemory, type WasiFunction } from './wasi-descriptors.js';
import { fileFunctions } from './wasi-files.js';
import { directoryFunctions } from './wasi-directories.js';
import { WasiPaths } from './wasi-paths.js';

export { ERRNO } from './wasi-abi.js';
export type { GuestMemory, WasiFunction } from './wasi-descriptors.js';

export class WasiFiles {
  private readonly descriptors: Descriptors;

  constructor(
    memory: GuestMemory,
    preopens: readonly Preopen[],
    stdin: Uint8Array,
    output: (stream: 1 | 2, bytes: Uint8Array) => void,
  ) {
    this.descriptors = new Descriptors(memory, preopens, stdin, output);
  }

  /** Closes every host file the program left open (after each repetition). */
  closeAll(): void {
    this.descriptors.closeAll();
  }

  /** For poll_oneoff: whether `fd` can be read/written now (always: nothing here blocks) and how many bytes wait. */
  readiness(fd: number, reading: boolean): { error: number; nbytes: bigint } {
    return this.descriptors.readiness(fd, reading);
  }

  /** Every fd_*, path_* and sock_* function of wasi_snapshot_preview1. */
  functions(): Record<string, WasiFunction> {
    const d = this.descriptors;
    const socket = (fd: Arg) => (d.open.has(n(fd)) ? ERRNO.NOTSOCK : ERRNO.BADF);
    return {
      ...fileFunctions(d),
      ...directoryFunctions(d),
      ...new WasiPaths(d).functions(),
      // Taintlens gives a program no sockets: every descriptor it has is not one.
      sock_accept: (fd) => socket(fd),
      sock_recv: (fd) => socket(fd),
      sock_send: (fd) => socket(fd),
      sock_shutdown: (fd) => socket(fd),
    };
  }
}
