// The WASI preview1 host: argv, environment, stdout/stderr captured in memory, stdin and preopened
// directories (wasi-fs.ts), clocks (real, or virtual for analysis runs), seeded random bytes, exit codes.
// Ours rather than node:wasi because it reads program memory at `programBase` (instrumented modules
// keep our data below the program), is deterministic where it can be (random_get), captures
// output without temporary files, and avoids a Node 20 crash seen when node:wasi tears down next
// to a large instrumented memory.

import { ERRNO, WasiFiles, type GuestMemory } from './wasi-fs.js';
import type { Preopen, WasiClock } from './protocol.js';

/** The virtual clock starts here (2024-01-01T00:00:00Z) and advances this much per reading. */
const VIRTUAL_EPOCH_NS = 1_704_067_200_000_000_000n;
const VIRTUAL_TICK_NS = 1_000_000n;

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
  preopens?: readonly Preopen[];
  stdin?: Uint8Array;
  /** 'virtual': every clock reading is 1 ms after the previous one, from a fixed start (deterministic). */
  clock?: WasiClock;
}

export class WasiHost {
  private readonly output = { 1: [] as Uint8Array[], 2: [] as Uint8Array[] };
  private randomState = 0x2545f491;
  private virtualNow = VIRTUAL_EPOCH_NS;
  readonly files: WasiFiles;

  constructor(private readonly options: WasiOptions) {
    const memory: GuestMemory = { bytes: () => this.bytes(), view: () => this.view(), at: (p) => this.at(p) };
    this.files = new WasiFiles(memory, options.preopens ?? [], options.stdin ?? new Uint8Array(0));
  }

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
    const files = this.files.functions();
    return {
      ...files,
      args_get: (argv, buffer) => this.writeStrings(this.options.args, n(argv), n(buffer)),
      args_sizes_get: (count, size) => this.sizes(this.options.args, n(count), n(size)),
      environ_get: (environ, buffer) => this.writeStrings(this.environment(), n(environ), n(buffer)),
      environ_sizes_get: (count, size) => this.sizes(this.environment(), n(count), n(size)),
      clock_res_get: (_id, result) => {
        this.view().setBigUint64(this.at(result!), 1000n, true);
        return ERRNO.SUCCESS;
      },
      clock_time_get: (id, _precision, result) => {
        const now = this.options.clock === 'virtual' ? (this.virtualNow += VIRTUAL_TICK_NS) : n(id!) === 0 ? BigInt(Date.now()) * 1_000_000n : process.hrtime.bigint();
        this.view().setBigUint64(this.at(result!), now, true);
        return ERRNO.SUCCESS;
      },
      fd_write: (fd, iovs, count, written) => {
        const sink = this.output[n(fd!) as 1 | 2];
        if (!sink) return files.fd_write!(fd!, iovs!, count!, written!);
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
