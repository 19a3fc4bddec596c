// A small WASI preview1 host for kernels: argv, environment, stdout/stderr captured in memory,
// clocks, seeded random bytes, exit codes, and no filesystem (there are no preopened directories).
// Ours rather than node:wasi because it reads program memory at `programBase` (instrumented modules
// keep our data below the program), is deterministic where it can be (random_get), captures
// output without temporary files, and avoids a Node 20 crash seen when node:wasi tears down next
// to a large instrumented memory.

const ERRNO = { SUCCESS: 0, BADF: 8, INVAL: 28, NOSYS: 52, SPIPE: 70 } as const;
const FILETYPE_CHARACTER_DEVICE = 2;

export class WasiExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

type WasiFunction = (...args: Array<number | bigint>) => number | void;

export interface WasiOptions {
  args: string[];
  env?: Record<string, string>;
  memory: () => WebAssembly.Memory | undefined;
  programBase: number;
}

export class WasiHost {
  private readonly output = { 1: [] as Uint8Array[], 2: [] as Uint8Array[] };
  private randomState = 0x2545f491;

  constructor(private readonly options: WasiOptions) {}

  get stdout(): string {
    return Buffer.concat(this.output[1]).toString('utf8');
  }

  get stderr(): string {
    return Buffer.concat(this.output[2]).toString('utf8');
  }

  /** Imports for every `wasi_snapshot_preview1` function the module asks for; unknown ones answer ENOSYS. */
  imports(module: WebAssembly.Module): Record<string, WebAssembly.ImportValue> {
    const known = this.functions();
    const imports: Record<string, WebAssembly.ImportValue> = {};
    for (const entry of WebAssembly.Module.imports(module)) {
      if (!entry.module.startsWith('wasi_') || entry.kind !== 'function') continue;
      imports[entry.name] = known[entry.name] ?? (() => ERRNO.NOSYS);
    }
    return imports;
  }

  private bytes(): Uint8Array {
    const memory = this.options.memory();
    if (!memory) throw new Error('WASI module does not export its memory');
    return new Uint8Array(memory.buffer);
  }

  private view(): DataView {
    const bytes = this.bytes();
    return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private at(pointer: number | bigint): number {
    return Number(pointer) + this.options.programBase;
  }

  private writeStrings(strings: string[], pointers: number, buffer: number): number {
    const view = this.view();
    const bytes = this.bytes();
    let offset = buffer;
    strings.forEach((text, i) => {
      view.setUint32(this.at(pointers) + 4 * i, offset, true);
      const encoded = Buffer.from(`${text}\0`, 'utf8');
      bytes.set(encoded, this.at(offset));
      offset += encoded.length;
    });
    return ERRNO.SUCCESS;
  }

  private sizes(strings: string[], countPointer: number, sizePointer: number): number {
    const view = this.view();
    view.setUint32(this.at(countPointer), strings.length, true);
    view.setUint32(this.at(sizePointer), strings.reduce((n, s) => n + Buffer.byteLength(s, 'utf8') + 1, 0), true);
    return ERRNO.SUCCESS;
  }

  private environment(): string[] {
    return Object.entries(this.options.env ?? {}).map(([key, value]) => `${key}=${value}`);
  }

  private functions(): Record<string, WasiFunction> {
    const n = (value: number | bigint) => Number(value);
    return {
      args_get: (argv, buffer) => this.writeStrings(this.options.args, n(argv), n(buffer)),
      args_sizes_get: (count, size) => this.sizes(this.options.args, n(count), n(size)),
      environ_get: (environ, buffer) => this.writeStrings(this.environment(), n(environ), n(buffer)),
      environ_sizes_get: (count, size) => this.sizes(this.environment(), n(count), n(size)),
      clock_res_get: (_id, result) => {
        this.view().setBigUint64(this.at(result!), 1000n, true);
        return ERRNO.SUCCESS;
      },
      clock_time_get: (id, _precision, result) => {
        const now = n(id!) === 0 ? BigInt(Date.now()) * 1_000_000n : process.hrtime.bigint();
        this.view().setBigUint64(this.at(result!), now, true);
        return ERRNO.SUCCESS;
      },
      fd_write: (fd, iovs, count, written) => {
        const sink = this.output[n(fd!) as 1 | 2];
        if (!sink) return ERRNO.BADF;
        const view = this.view();
        const bytes = this.bytes();
        let total = 0;
        for (let i = 0; i < n(count!); i++) {
          const base = view.getUint32(this.at(iovs!) + 8 * i, true);
          const length = view.getUint32(this.at(iovs!) + 8 * i + 4, true);
          sink.push(bytes.slice(this.at(base), this.at(base) + length));
          total += length;
        }
        view.setUint32(this.at(written!), total, true);
        return ERRNO.SUCCESS;
      },
      fd_read: (fd, _iovs, _count, read) => {
        if (n(fd!) !== 0) return ERRNO.BADF;
        this.view().setUint32(this.at(read!), 0, true);
        return ERRNO.SUCCESS;
      },
      fd_close: (fd) => (n(fd!) <= 2 ? ERRNO.SUCCESS : ERRNO.BADF),
      fd_seek: (fd) => (n(fd!) <= 2 ? ERRNO.SPIPE : ERRNO.BADF),
      fd_fdstat_get: (fd, stat) => {
        if (n(fd!) > 2) return ERRNO.BADF;
        const view = this.view();
        const at = this.at(stat!);
        view.setUint8(at, FILETYPE_CHARACTER_DEVICE);
        view.setUint16(at + 2, 0, true);
        view.setBigUint64(at + 8, 0xffffffffn, true);
        view.setBigUint64(at + 16, 0xffffffffn, true);
        return ERRNO.SUCCESS;
      },
      fd_fdstat_set_flags: (fd) => (n(fd!) <= 2 ? ERRNO.SUCCESS : ERRNO.BADF),
      fd_prestat_get: () => ERRNO.BADF,
      fd_prestat_dir_name: () => ERRNO.BADF,
      random_get: (buffer, length) => {
        const bytes = this.bytes();
        for (let i = 0; i < n(length!); i++) {
          this.randomState ^= this.randomState << 13;
          this.randomState ^= this.randomState >>> 17;
          this.randomState ^= this.randomState << 5;
          bytes[this.at(buffer!) + i] = this.randomState & 0xff;
        }
        return ERRNO.SUCCESS;
      },
      sched_yield: () => ERRNO.SUCCESS,
      proc_exit: (code) => {
        throw new WasiExit(n(code!));
      },
    };
  }
}
