// The WASI preview1 host: argv, environment, stdout/stderr captured in memory, stdin and preopened
// directories (wasi-fs.ts), clocks (real, or virtual for analysis runs), seeded random bytes, exit codes.
// Ours rather than node:wasi because it reads program memory at `programBase` (instrumented modules
// keep our data below the program), is deterministic where it can be (random_get), captures
// output without temporary files, and avoids a Node 20 crash seen when node:wasi tears down next
// to a large instrumented memory.

import { WasiFiles, type GuestMemory, type WasiFunction } from './wasi-fs.js';
import { ERRNO, EVENT, EVENTTYPE, SUBCLOCK_ABSTIME, SUBSCRIPTION } from './wasi-abi.js';
import type { Preopen, WasiClock } from './protocol.js';

/** The virtual clock starts here (2024-01-01T00:00:00Z) and advances this much per reading. */
const VIRTUAL_EPOCH_NS = 1_704_067_200_000_000_000n;
const VIRTUAL_TICK_NS = 1_000_000n;
const CLOCK = { REALTIME: 0, MONOTONIC: 1, PROCESS_CPUTIME: 2, THREAD_CPUTIME: 3 } as const;

export class WasiExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** The run cannot go on: a WASI call the host does not implement, or a signal the program raised. */
export class WasiFatal extends Error {}

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

export const WASI_MODULE = 'wasi_snapshot_preview1';

export class WasiHost {
  private readonly output = { 1: [] as Uint8Array[], 2: [] as Uint8Array[] };
  private randomState = 0x2545f491;
  private virtualNow = VIRTUAL_EPOCH_NS;
  private readonly startNs = process.hrtime.bigint();
  readonly files: WasiFiles;

  constructor(private readonly options: WasiOptions) {
    const memory: GuestMemory = { bytes: () => this.bytes(), view: () => this.view(), at: (p) => this.at(p) };
    this.files = new WasiFiles(memory, options.preopens ?? [], options.stdin ?? new Uint8Array(0), (stream, bytes) =>
      this.output[stream].push(bytes),
    );
  }

  get stdout(): string {
    return Buffer.concat(this.output[1]).toString('utf8');
  }

  get stderr(): string {
    return Buffer.concat(this.output[2]).toString('utf8');
  }

  /**
   * Imports for every `wasi_snapshot_preview1` function the module asks for. A name the host does
   * not know links, and ends the run with one line naming it when the program calls it.
   */
  imports(module: WebAssembly.Module): Record<string, WebAssembly.ImportValue> {
    const known = this.functions();
    const imports: Record<string, WebAssembly.ImportValue> = {};
    for (const entry of WebAssembly.Module.imports(module)) {
      if (entry.module !== WASI_MODULE || entry.kind !== 'function') continue;
      imports[entry.name] =
        known[entry.name] ??
        (() => {
          throw new WasiFatal(`called ${WASI_MODULE}.${entry.name}, which Taintlens's WASI host does not implement`);
        });
    }
    return imports;
  }

  /** The names of every WASI function the host implements. */
  static implemented(): string[] {
    const host = new WasiHost({ args: [], memory: () => undefined, programBase: 0 });
    return Object.keys(host.functions()).sort();
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
    view.setUint32(
      this.at(sizePointer),
      strings.reduce((n, s) => n + Buffer.byteLength(s, 'utf8') + 1, 0),
      true,
    );
    return ERRNO.SUCCESS;
  }

  private environment(): string[] {
    return Object.entries(this.options.env ?? {}).map(([key, value]) => `${key}=${value}`);
  }

  /** Nanoseconds on `clock` (real, or the virtual clock's next reading), or null for an unknown clock. */
  private now(clock: number): bigint | null {
    if (clock < CLOCK.REALTIME || clock > CLOCK.THREAD_CPUTIME) return null;
    if (this.options.clock === 'virtual') return (this.virtualNow += VIRTUAL_TICK_NS);
    if (clock === CLOCK.REALTIME) return BigInt(Date.now()) * 1_000_000n;
    if (clock === CLOCK.MONOTONIC) return process.hrtime.bigint();
    return process.hrtime.bigint() - this.startNs;
  }

  /** Blocks for `ns` nanoseconds (the virtual clock just moves on). */
  private sleep(ns: bigint): void {
    if (ns <= 0n) return;
    if (this.options.clock === 'virtual') {
      this.virtualNow += ns;
      return;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ns) / 1e6);
  }

  /** poll_oneoff: clock subscriptions sleep until the earliest one is due; descriptors are always ready. */
  private poll(input: number, output: number, count: number, eventsPointer: number): number {
    if (count === 0) return ERRNO.INVAL;
    const view = this.view();
    const events: Array<{ userdata: bigint; error: number; type: number; nbytes: bigint }> = [];
    let wait: bigint | null = null;
    const clocks: Array<{ userdata: bigint; due: bigint }> = [];
    for (let i = 0; i < count; i++) {
      const at = this.at(input) + i * SUBSCRIPTION.bytes;
      const userdata = view.getBigUint64(at + SUBSCRIPTION.userdata, true);
      const tag = view.getUint8(at + SUBSCRIPTION.tag);
      if (tag === EVENTTYPE.CLOCK) {
        const timeout = view.getBigUint64(at + SUBSCRIPTION.timeout, true);
        const absolute = (view.getUint16(at + SUBSCRIPTION.clockFlags, true) & SUBCLOCK_ABSTIME) !== 0;
        const id = view.getUint32(at + SUBSCRIPTION.clockId, true);
        const now = absolute ? this.now(id) : 0n;
        if (now === null) {
          events.push({ userdata, error: ERRNO.INVAL, type: tag, nbytes: 0n });
          continue;
        }
        const due = absolute ? timeout - now : timeout;
        clocks.push({ userdata, due });
        wait = wait === null || due < wait ? due : wait;
      } else if (tag === EVENTTYPE.FD_READ || tag === EVENTTYPE.FD_WRITE) {
        const ready = this.files.readiness(view.getUint32(at + SUBSCRIPTION.fd, true), tag === EVENTTYPE.FD_READ);
        events.push({ userdata, error: ready.error, type: tag, nbytes: ready.nbytes });
      } else {
        return ERRNO.INVAL;
      }
    }
    // Ready descriptors answer at once; with none, the earliest clock fires after its wait.
    if (events.length === 0 && wait !== null) {
      this.sleep(wait);
      for (const clock of clocks)
        if (clock.due <= wait)
          events.push({ userdata: clock.userdata, error: ERRNO.SUCCESS, type: EVENTTYPE.CLOCK, nbytes: 0n });
    }
    events.forEach((event, i) => {
      const at = this.at(output) + i * EVENT.bytes;
      this.bytes().fill(0, at, at + EVENT.bytes);
      view.setBigUint64(at + EVENT.userdata, event.userdata, true);
      view.setUint16(at + EVENT.error, event.error, true);
      view.setUint8(at + EVENT.type, event.type);
      view.setBigUint64(at + EVENT.nbytes, event.nbytes, true);
    });
    view.setUint32(this.at(eventsPointer), events.length, true);
    return ERRNO.SUCCESS;
  }

  private functions(): Record<string, WasiFunction> {
    const n = (value: number | bigint | undefined) => Number(value ?? 0);
    return {
      ...this.files.functions(),
      args_get: (argv, buffer) => this.writeStrings(this.options.args, n(argv), n(buffer)),
      args_sizes_get: (count, size) => this.sizes(this.options.args, n(count), n(size)),
      environ_get: (environ, buffer) => this.writeStrings(this.environment(), n(environ), n(buffer)),
      environ_sizes_get: (count, size) => this.sizes(this.environment(), n(count), n(size)),
      clock_res_get: (id, result) => {
        if (n(id) < CLOCK.REALTIME || n(id) > CLOCK.THREAD_CPUTIME) return ERRNO.INVAL;
        this.view().setBigUint64(this.at(n(result)), n(id) === CLOCK.REALTIME ? 1_000_000n : 1000n, true);
        return ERRNO.SUCCESS;
      },
      clock_time_get: (id, _precision, result) => {
        const now = this.now(n(id));
        if (now === null) return ERRNO.INVAL;
        this.view().setBigUint64(this.at(n(result)), now, true);
        return ERRNO.SUCCESS;
      },
      poll_oneoff: (input, output, count, events) => this.poll(n(input), n(output), n(count), n(events)),
      random_get: (buffer, length) => {
        const bytes = this.bytes();
        for (let i = 0; i < n(length); i++) {
          this.randomState ^= this.randomState << 13;
          this.randomState ^= this.randomState >>> 17;
          this.randomState ^= this.randomState << 5;
          bytes[this.at(n(buffer)) + i] = this.randomState & 0xff;
        }
        return ERRNO.SUCCESS;
      },
      sched_yield: () => ERRNO.SUCCESS,
      proc_exit: (code) => {
        throw new WasiExit(n(code));
      },
      proc_raise: (signal) => {
        throw new WasiFatal(`the program raised signal ${n(signal)} (proc_raise)`);
      },
    };
  }
}
