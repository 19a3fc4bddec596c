// The `taintlens_mp.mpi_*` imports native/include/mpi.h calls: each takes the MPI call's own
// arguments (program pointers, counts, handles) and hands them to the rank's MpiRank. Out
// arguments (flags, indices, new handles) are written to the program's memory here; every
// communication call's time and bytes are recorded under its MPI name.
import { COMM_NULL, UNDEFINED, type MpiRank } from './mpi-rank.js';

/** Times `body` as communication call `op` moving the bytes it returns (or `bytes`). */
export type Timed = <T>(op: string, bytes: number | ((value: T) => number), body: () => T) => T;

type Import = (...args: number[]) => number | void;

export function mpiImports(mpi: MpiRank, timed: Timed): Record<string, Import> {
  const returned = (bytes: number) => bytes;
  const out = (pointer: number, value: number) => {
    if (pointer !== 0) mpi.writeI32(pointer, value);
  };
  /**
   * Writes Waitany/Testany's index and status, or MPI_UNDEFINED when no request was active.
   * Returns the bytes received, or null when an active request is still incomplete.
   */
  const any = (requests: number, index: number, status: number, done: number[] | null): number | null => {
    const first = done?.[0];
    if (first === undefined) {
      out(index, UNDEFINED);
      return done === null ? 0 : null;
    }
    out(index, first);
    return mpi.finish(requests, status, first, 0);
  };
  /** Writes Waitsome/Testsome's count, indices and statuses; returns the bytes received. */
  const some = (
    requests: number,
    outCount: number,
    indices: number,
    statuses: number,
    done: number[] | null,
  ): number => {
    out(outCount, done === null ? UNDEFINED : done.length);
    let bytes = 0;
    done?.forEach((index, k) => {
      bytes += mpi.finish(requests, statuses, index, k);
      out(indices + 4 * k, index);
    });
    return bytes;
  };
  /** Writes a test's flag; its bytes are those received (none when incomplete). */
  const tested = (flag: number, bytes: number | null): number => {
    out(flag, bytes === null ? 0 : 1);
    return bytes ?? 0;
  };
  return {
    mpi_comm_size: (comm) => mpi.commSize(comm),
    mpi_comm_rank: (comm) => mpi.commRank(comm),
    mpi_abort: (comm, code) => mpi.abort(comm, code),
    mpi_send: (buf, count, type, dest, tag, comm) =>
      timed('MPI_Send', returned, () => mpi.send(buf, count, type, dest, tag, comm)),
    mpi_isend: (buf, count, type, dest, tag, comm, request) =>
      timed('MPI_Isend', returned, () => mpi.isend(buf, count, type, dest, tag, comm, request)),
    mpi_recv: (buf, count, type, source, tag, comm, status) =>
      timed('MPI_Recv', returned, () => mpi.recv(buf, count, type, source, tag, comm, status)),
    mpi_irecv: (buf, count, type, source, tag, comm, request) =>
      timed('MPI_Irecv', 0, () => mpi.irecv(buf, count, type, source, tag, comm, request)),
    mpi_sendrecv: (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status) =>
      timed(
        'MPI_Sendrecv',
        returned,
        () =>
          mpi.send(sbuf, scount, stype, dest, stag, comm) + mpi.recv(rbuf, rcount, rtype, source, rtag, comm, status),
      ),
    mpi_sendrecv_replace: (buf, count, type, dest, stag, source, rtag, comm, status) =>
      timed('MPI_Sendrecv_replace', returned, () =>
        mpi.sendrecvReplace(buf, count, type, dest, stag, source, rtag, comm, status),
      ),
    // Completions count the bytes their receives brought (MPI_Irecv itself moves none).
    mpi_wait: (request, status) => void timed('MPI_Wait', returned, () => mpi.wait(request, status)),
    mpi_waitall: (count, requests, statuses) =>
      void timed('MPI_Waitall', returned, () => mpi.waitAll(count, requests, statuses)),
    mpi_waitany: (count, requests, index, status) =>
      void timed('MPI_Waitany', returned, () => any(requests, index, status, mpi.waitSome(count, requests, true)) ?? 0),
    mpi_waitsome: (count, requests, outCount, indices, statuses) =>
      void timed('MPI_Waitsome', returned, () =>
        some(requests, outCount, indices, statuses, mpi.waitSome(count, requests, false)),
      ),
    mpi_testall: (count, requests, flag, statuses) =>
      void timed('MPI_Testall', returned, () => tested(flag, mpi.testAll(count, requests, statuses))),
    mpi_testany: (count, requests, index, flag, status) =>
      void timed('MPI_Testany', returned, () =>
        tested(flag, any(requests, index, status, mpi.testSome(count, requests, true))),
      ),
    mpi_testsome: (count, requests, outCount, indices, statuses) =>
      void timed('MPI_Testsome', returned, () =>
        some(requests, outCount, indices, statuses, mpi.testSome(count, requests, false)),
      ),
    mpi_request_free: (request) => mpi.requestFree(request),
    mpi_probe: (source, tag, comm, status) =>
      timed('MPI_Probe', 0, () => void mpi.probe(source, tag, comm, status, true)),
    mpi_iprobe: (source, tag, comm, flag, status) =>
      timed('MPI_Iprobe', 0, () => out(flag, mpi.probe(source, tag, comm, status, false) ? 1 : 0)),
    mpi_barrier: (comm) => timed('MPI_Barrier', 0, () => mpi.barrier(comm)),
    mpi_bcast: (buf, count, type, root, comm) =>
      timed('MPI_Bcast', returned, () => mpi.bcast(buf, count, type, root, comm)),
    mpi_reduce: (input, output, count, type, op, root, comm) =>
      timed('MPI_Reduce', returned, () => mpi.reduce(input, output, count, type, op, root, comm)),
    mpi_allreduce: (input, output, count, type, op, comm) =>
      timed('MPI_Allreduce', returned, () => mpi.reduce(input, output, count, type, op, -1, comm)),
    mpi_scan: (input, output, count, type, op, comm) =>
      timed('MPI_Scan', returned, () => mpi.scan(input, output, count, type, op, comm, false)),
    mpi_exscan: (input, output, count, type, op, comm) =>
      timed('MPI_Exscan', returned, () => mpi.scan(input, output, count, type, op, comm, true)),
    mpi_gather: (sbuf, scount, stype, rbuf, rcount, rtype, root, comm) =>
      timed('MPI_Gather', returned, () => mpi.gather(sbuf, scount, stype, rbuf, rcount, 0, 0, rtype, root, comm)),
    mpi_gatherv: (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm) =>
      timed('MPI_Gatherv', returned, () =>
        mpi.gather(sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm),
      ),
    mpi_allgather: (sbuf, scount, stype, rbuf, rcount, rtype, comm) =>
      timed('MPI_Allgather', returned, () => mpi.gather(sbuf, scount, stype, rbuf, rcount, 0, 0, rtype, -1, comm)),
    mpi_allgatherv: (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm) =>
      timed('MPI_Allgatherv', returned, () =>
        mpi.gather(sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, -1, comm),
      ),
    mpi_scatter: (sbuf, scount, stype, rbuf, rcount, rtype, root, comm) =>
      timed('MPI_Scatter', returned, () => mpi.scatter(sbuf, scount, 0, 0, stype, rbuf, rcount, rtype, root, comm)),
    mpi_scatterv: (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm) =>
      timed('MPI_Scatterv', returned, () =>
        mpi.scatter(sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
      ),
    mpi_alltoall: (sbuf, scount, stype, rbuf, rcount, rtype, comm) =>
      timed('MPI_Alltoall', returned, () => mpi.alltoall(sbuf, scount, 0, 0, stype, rbuf, rcount, 0, 0, rtype, comm)),
    mpi_alltoallv: (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm) =>
      timed('MPI_Alltoallv', returned, () =>
        mpi.alltoall(sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm),
      ),
    mpi_comm_dup: (comm, newComm) => timed('MPI_Comm_dup', 0, () => out(newComm, mpi.commDup(comm))),
    mpi_comm_split: (comm, color, key, newComm) =>
      timed('MPI_Comm_split', 0, () => out(newComm, mpi.commSplit(comm, color, key))),
    mpi_comm_free: (comm) => {
      mpi.commFree(mpi.readI32(comm));
      out(comm, COMM_NULL);
    },
    mpi_type_size: (type) => mpi.types.layout(type).size,
    mpi_type_extent: (type) => mpi.types.layout(type).extent,
    mpi_type_vector: (count, blockLength, stride, old, newType) =>
      out(
        newType,
        mpi.types.vector(count, blockLength, stride, old, `MPI_Type_vector(${count}, ${blockLength}, ${stride})`),
      ),
    mpi_type_contiguous: (count, old, newType) =>
      out(newType, mpi.types.vector(1, count, count, old, `MPI_Type_contiguous(${count})`)),
    mpi_type_commit: (type) => mpi.types.commit(mpi.readI32(type)),
    mpi_type_free: (type) => {
      mpi.types.free(mpi.readI32(type));
      out(type, 0);
    },
  };
}
