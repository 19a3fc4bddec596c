// The host plugin giving a rank its `taintlens_mp` imports (runs inside the rank's worker). Every
// import takes program pointers and byte counts; the data is copied straight between the module's
// memory and the shared channels. Signatures: native/include/taintlens_mp.h; the `mpi_*` imports
// of native/include/mpi.h are src/runtime/spmd/mpi-imports.ts.
import type { HostPluginFactory } from '../plugin.js';
import { ANY_TAG, Communicator, elementBytes } from './communicator.js';
import { mpiImports } from './mpi-imports.js';
import { MpiRank } from './mpi-rank.js';
import { OpRecorder, type OpStats } from './op-stats.js';
import type { SharedLayout } from './shared-state.js';

export interface MpPluginOptions {
  layout: SharedLayout;
  rank: number;
}

export interface MpPluginResult {
  rank: number;
  size: number;
  /** Time and bytes per communication import (first call apart, then the steady state). */
  communication: Record<string, OpStats>;
}

export const MP_MODULE = 'taintlens_mp';
export const mpPluginUrl = new URL(
  import.meta.url.endsWith('.ts') ? './mp-plugin.ts' : './mp-plugin.js',
  import.meta.url,
).href;

const factory: HostPluginFactory = (rawOptions, context) => {
  const { layout, rank } = rawOptions as MpPluginOptions;
  const comm = new Communicator(layout, rank);
  const recorder = new OpRecorder();
  const view = (pointer: number, bytes: number): Uint8Array => {
    const memory = context.memory();
    if (!memory) throw new Error('the module does not export its memory, so taintlens_mp cannot reach its buffers');
    const start = (pointer >>> 0) + context.programBase;
    if (bytes < 0 || start + bytes > memory.buffer.byteLength)
      throw new RangeError(`taintlens_mp: buffer [${pointer}, ${pointer + bytes}) is outside memory`);
    return new Uint8Array(memory.buffer, start, bytes);
  };
  const timed = <T>(op: string, bytes: number | ((value: T) => number), body: () => T): T => {
    const start = performance.now();
    const value = body();
    recorder.record(op, performance.now() - start, typeof bytes === 'number' ? bytes : bytes(value));
    return value;
  };
  // MPI's mailboxes exist before the start barrier, so no rank sends to one not yet listening.
  const mpi = new MpiRank(comm, { view }, layout.mailboxPrefix);
  return {
    imports: () => ({
      [MP_MODULE]: {
        rank: () => rank,
        size: () => comm.size,
        wtime: () => performance.now() / 1000,
        send: (pointer: number, bytes: number, dest: number, tag: number) =>
          timed('send', bytes, () => comm.send(view(pointer, bytes), dest, tag)),
        recv: (pointer: number, bytes: number, source: number, tag: number) =>
          timed('recv', bytes, () => comm.recv(view(pointer, bytes), source, tag < 0 ? ANY_TAG : tag)),
        sendrecv: (
          out: number,
          outBytes: number,
          dest: number,
          sendTag: number,
          into: number,
          intoBytes: number,
          source: number,
          recvTag: number,
        ) =>
          timed('sendrecv', outBytes + intoBytes, () =>
            comm.sendrecv(
              view(out, outBytes),
              dest,
              sendTag,
              view(into, intoBytes),
              source,
              recvTag < 0 ? ANY_TAG : recvTag,
            ),
          ),
        bcast: (pointer: number, bytes: number, root: number) =>
          timed('bcast', bytes, () => comm.bcast(view(pointer, bytes), root)),
        reduce: (input: number, output: number, count: number, datatype: number, operator: number, root: number) => {
          const bytes = count * elementBytes(datatype);
          timed('reduce', bytes, () =>
            comm.reduce(
              view(input, bytes),
              rank === root ? view(output, bytes) : null,
              count,
              datatype,
              operator,
              root,
            ),
          );
        },
        allreduce: (input: number, output: number, count: number, datatype: number, operator: number) => {
          const bytes = count * elementBytes(datatype);
          timed('allreduce', bytes, () =>
            comm.allreduce(view(input, bytes), view(output, bytes), count, datatype, operator),
          );
        },
        barrier: () => timed('barrier', 0, () => comm.barrier()),
        ...mpiImports(mpi, timed),
      },
    }),
    beforeRun: () => comm.start(),
    afterRun: (): MpPluginResult => {
      comm.finish();
      mpi.close();
      return { rank, size: comm.size, communication: recorder.summary() };
    },
  };
};

export default factory;
