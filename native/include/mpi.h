/*
 * The subset of MPI that proxy applications use, for `taintlens ... --ranks P` (docs/spmd.md): a
 * program written against it compiles unchanged for wasm32-wasi (`-I native/include`). Every call
 * is a `taintlens_mp.mpi_*` import served by src/runtime/spmd/mpi-rank.ts.
 *
 *   point to point   Send, Recv, Sendrecv, Sendrecv_replace, Isend, Irecv, Wait, Waitall, Waitany,
 *                    Waitsome, Test, Testall, Testany, Testsome, Request_free, Probe, Iprobe,
 *                    Get_count; MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_REQUEST_NULL,
 *                    MPI_STATUS(ES)_IGNORE
 *   collectives      Barrier, Bcast, Reduce, Allreduce, Scan, Exscan, Gather(v), Allgather(v),
 *                    Scatter(v), Alltoall(v) (MPI_IN_PLACE where MPI allows it)
 *   communicators    MPI_COMM_WORLD, MPI_COMM_SELF, Comm_dup, Comm_split, Comm_free, Comm_rank/size
 *   datatypes        every basic C type, the MINLOC/MAXLOC pair types, Type_contiguous/vector
 *   operators        MAX MIN SUM PROD LAND BAND LOR BOR LXOR BXOR MINLOC MAXLOC
 *   environment      Init, Init_thread, Initialized, Finalize, Finalized, Abort, Wtime, Wtick
 *
 * Semantics: every send is buffered (it returns at once, whatever the size), so non-blocking calls
 * never deadlock; a program that does (every rank waiting) is stopped and reported. Messages
 * between two ranks on one communicator arrive in the order sent; receives match in the order
 * posted. Collectives combine in rank order: reductions give the same bits however the ranks are
 * scheduled. Not provided: one-sided, I/O, groups, topologies, persistent requests, MPI_Cancel.
 * For the taint analysis, the size of MPI_COMM_WORLD is the parameter `p`.
 */
#ifndef TAINTLENS_MPI_H
#define TAINTLENS_MPI_H

#include "taintlens_mp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef long MPI_Aint;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR, tl_bytes; } MPI_Status;

#ifdef __cplusplus
static_assert(sizeof(long) == 4 && sizeof(long double) == 16, "mpi.h describes wasm32's C types");
#else
_Static_assert(sizeof(long) == 4 && sizeof(long double) == 16, "mpi.h describes wasm32's C types");
#endif

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_COMM_WORLD 0
#define MPI_COMM_SELF 1
#define MPI_COMM_NULL (-1)
#define MPI_REQUEST_NULL 0
#define MPI_DATATYPE_NULL 0
#define MPI_OP_NULL 0
#define MPI_ANY_TAG (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_MAX_PROCESSOR_NAME 64

/* Datatypes and operators, numbered as src/runtime/spmd/datatypes.ts. */
#define MPI_CHAR 1
#define MPI_SIGNED_CHAR 2
#define MPI_UNSIGNED_CHAR 3
#define MPI_BYTE 4
#define MPI_SHORT 5
#define MPI_UNSIGNED_SHORT 6
#define MPI_INT 7
#define MPI_UNSIGNED 8
#define MPI_LONG 9
#define MPI_UNSIGNED_LONG 10
#define MPI_LONG_LONG 11
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT 13
#define MPI_DOUBLE 14
#define MPI_LONG_DOUBLE 15
#define MPI_C_BOOL 16
#define MPI_INT8_T 17
#define MPI_INT16_T 18
#define MPI_INT32_T 19
#define MPI_INT64_T 20
#define MPI_UINT8_T 21
#define MPI_UINT16_T 22
#define MPI_UINT32_T 23
#define MPI_UINT64_T 24
#define MPI_WCHAR 25
#define MPI_PACKED 26
#define MPI_FLOAT_INT 30
#define MPI_DOUBLE_INT 31
#define MPI_LONG_INT 32
#define MPI_2INT 33
#define MPI_SHORT_INT 34
#define MPI_LONG_DOUBLE_INT 35

#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MINLOC 11
#define MPI_MAXLOC 12

#define TL_MPI(name) __attribute__((import_module("taintlens_mp"), import_name(#name)))
TL_MPI(mpi_comm_size) int tl_mpi_comm_size(MPI_Comm);
TL_MPI(mpi_comm_rank) int tl_mpi_comm_rank(MPI_Comm);
TL_MPI(mpi_abort) void tl_mpi_abort(MPI_Comm, int);
TL_MPI(mpi_send) void tl_mpi_send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
TL_MPI(mpi_isend) void tl_mpi_isend(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
TL_MPI(mpi_recv) void tl_mpi_recv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
TL_MPI(mpi_irecv) void tl_mpi_irecv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
TL_MPI(mpi_sendrecv) void tl_mpi_sendrecv(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
TL_MPI(mpi_sendrecv_replace) void tl_mpi_sendrecv_replace(void *, int, MPI_Datatype, int, int, int, int, MPI_Comm, MPI_Status *);
TL_MPI(mpi_wait) void tl_mpi_wait(MPI_Request *, MPI_Status *);
TL_MPI(mpi_waitall) void tl_mpi_waitall(int, MPI_Request *, MPI_Status *);
TL_MPI(mpi_waitany) void tl_mpi_waitany(int, MPI_Request *, int *, MPI_Status *);
TL_MPI(mpi_waitsome) void tl_mpi_waitsome(int, MPI_Request *, int *, int *, MPI_Status *);
TL_MPI(mpi_testall) void tl_mpi_testall(int, MPI_Request *, int *, MPI_Status *);
TL_MPI(mpi_testany) void tl_mpi_testany(int, MPI_Request *, int *, int *, MPI_Status *);
TL_MPI(mpi_testsome) void tl_mpi_testsome(int, MPI_Request *, int *, int *, MPI_Status *);
TL_MPI(mpi_request_free) void tl_mpi_request_free(MPI_Request *);
TL_MPI(mpi_probe) void tl_mpi_probe(int, int, MPI_Comm, MPI_Status *);
TL_MPI(mpi_iprobe) void tl_mpi_iprobe(int, int, MPI_Comm, int *, MPI_Status *);
TL_MPI(mpi_barrier) void tl_mpi_barrier(MPI_Comm);
TL_MPI(mpi_bcast) void tl_mpi_bcast(void *, int, MPI_Datatype, int, MPI_Comm);
TL_MPI(mpi_reduce) void tl_mpi_reduce(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
TL_MPI(mpi_allreduce) void tl_mpi_allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
TL_MPI(mpi_scan) void tl_mpi_scan(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
TL_MPI(mpi_exscan) void tl_mpi_exscan(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
TL_MPI(mpi_gather) void tl_mpi_gather(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
TL_MPI(mpi_gatherv) void tl_mpi_gatherv(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, int, MPI_Comm);
TL_MPI(mpi_allgather) void tl_mpi_allgather(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
TL_MPI(mpi_allgatherv) void tl_mpi_allgatherv(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
TL_MPI(mpi_scatter) void tl_mpi_scatter(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
TL_MPI(mpi_scatterv) void tl_mpi_scatterv(const void *, const int *, const int *, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
TL_MPI(mpi_alltoall) void tl_mpi_alltoall(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
TL_MPI(mpi_alltoallv) void tl_mpi_alltoallv(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
TL_MPI(mpi_comm_dup) void tl_mpi_comm_dup(MPI_Comm, MPI_Comm *);
TL_MPI(mpi_comm_split) void tl_mpi_comm_split(MPI_Comm, int, int, MPI_Comm *);
TL_MPI(mpi_comm_free) void tl_mpi_comm_free(MPI_Comm *);
TL_MPI(mpi_type_size) int tl_mpi_type_size(MPI_Datatype);
TL_MPI(mpi_type_extent) int tl_mpi_type_extent(MPI_Datatype);
TL_MPI(mpi_type_contiguous) void tl_mpi_type_contiguous(int, MPI_Datatype, MPI_Datatype *);
TL_MPI(mpi_type_vector) void tl_mpi_type_vector(int, int, int, MPI_Datatype, MPI_Datatype *);
TL_MPI(mpi_type_commit) void tl_mpi_type_commit(MPI_Datatype *);
TL_MPI(mpi_type_free) void tl_mpi_type_free(MPI_Datatype *);
#undef TL_MPI

/* 0 before MPI_Init, 1 after, 2 after MPI_Finalize: one word for the whole program (weak: every
   translation unit including this header shares it). */
__attribute__((weak)) int tl_mpi_phase = 0;

static inline int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; tl_mpi_phase = 1; return MPI_SUCCESS; }
static inline int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  /* One thread per rank: any level the program asks for holds. */
  *provided = required;
  return MPI_Init(argc, argv);
}
static inline int MPI_Initialized(int *flag) { *flag = tl_mpi_phase >= 1; return MPI_SUCCESS; }
static inline int MPI_Finalize(void) { tl_mpi_phase = 2; return MPI_SUCCESS; }
static inline int MPI_Finalized(int *flag) { *flag = tl_mpi_phase == 2; return MPI_SUCCESS; }
static inline int MPI_Abort(MPI_Comm comm, int code) { tl_mpi_abort(comm, code); return MPI_ERR_OTHER; }
static inline double MPI_Wtime(void) { return tl_mp_wtime(); }
/* MPI_Wtime is performance.now() in seconds: microsecond resolution or finer. */
static inline double MPI_Wtick(void) { return 1e-6; }

/* The size of MPI_COMM_WORLD comes from tl_mp_size(), the source of the taint parameter p. */
static inline int MPI_Comm_size(MPI_Comm comm, int *size) { *size = comm == MPI_COMM_WORLD ? tl_mp_size() : tl_mpi_comm_size(comm); return MPI_SUCCESS; }
static inline int MPI_Comm_rank(MPI_Comm comm, int *rank) { *rank = comm == MPI_COMM_WORLD ? tl_mp_rank() : tl_mpi_comm_rank(comm); return MPI_SUCCESS; }
static inline int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) { tl_mpi_comm_dup(comm, out); return MPI_SUCCESS; }
static inline int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) { tl_mpi_comm_split(comm, color, key, out); return MPI_SUCCESS; }
static inline int MPI_Comm_free(MPI_Comm *comm) { tl_mpi_comm_free(comm); return MPI_SUCCESS; }

static inline int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  tl_mpi_send(buf, count, type, dest, tag, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  tl_mpi_isend(buf, count, type, dest, tag, comm, request);
  return MPI_SUCCESS;
}
static inline int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  tl_mpi_recv(buf, count, type, source, tag, comm, status);
  return MPI_SUCCESS;
}
static inline int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  tl_mpi_irecv(buf, count, type, source, tag, comm, request);
  return MPI_SUCCESS;
}
static inline int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                               MPI_Comm comm, MPI_Status *status) {
  tl_mpi_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  return MPI_SUCCESS;
}
static inline int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                                       MPI_Comm comm, MPI_Status *status) {
  tl_mpi_sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  return MPI_SUCCESS;
}
static inline int MPI_Wait(MPI_Request *request, MPI_Status *status) { tl_mpi_wait(request, status); return MPI_SUCCESS; }
static inline int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) { tl_mpi_waitall(count, requests, statuses); return MPI_SUCCESS; }
static inline int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) { tl_mpi_waitany(count, requests, index, status); return MPI_SUCCESS; }
static inline int MPI_Waitsome(int count, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  tl_mpi_waitsome(count, requests, outcount, indices, statuses);
  return MPI_SUCCESS;
}
static inline int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) { tl_mpi_testall(1, request, flag, status); return MPI_SUCCESS; }
static inline int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) { tl_mpi_testall(count, requests, flag, statuses); return MPI_SUCCESS; }
static inline int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  tl_mpi_testany(count, requests, index, flag, status);
  return MPI_SUCCESS;
}
static inline int MPI_Testsome(int count, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  tl_mpi_testsome(count, requests, outcount, indices, statuses);
  return MPI_SUCCESS;
}
static inline int MPI_Request_free(MPI_Request *request) { tl_mpi_request_free(request); return MPI_SUCCESS; }
static inline int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) { tl_mpi_probe(source, tag, comm, status); return MPI_SUCCESS; }
static inline int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) { tl_mpi_iprobe(source, tag, comm, flag, status); return MPI_SUCCESS; }
static inline int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count) {
  int size = tl_mpi_type_size(type);
  *count = size == 0 ? 0 : status->tl_bytes % size ? MPI_UNDEFINED : status->tl_bytes / size;
  return MPI_SUCCESS;
}

static inline int MPI_Barrier(MPI_Comm comm) { tl_mpi_barrier(comm); return MPI_SUCCESS; }
static inline int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) { tl_mpi_bcast(buf, count, type, root, comm); return MPI_SUCCESS; }
static inline int MPI_Reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  tl_mpi_reduce(in, out, count, type, op, root, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  tl_mpi_allreduce(in, out, count, type, op, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Scan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) { tl_mpi_scan(in, out, count, type, op, comm); return MPI_SUCCESS; }
static inline int MPI_Exscan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) { tl_mpi_exscan(in, out, count, type, op, comm); return MPI_SUCCESS; }
static inline int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  tl_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
  tl_mpi_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  tl_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm) {
  tl_mpi_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  tl_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  tl_mpi_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  tl_mpi_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return MPI_SUCCESS;
}
static inline int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  tl_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  return MPI_SUCCESS;
}

static inline int MPI_Type_size(MPI_Datatype type, int *size) { *size = tl_mpi_type_size(type); return MPI_SUCCESS; }
static inline int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent) { *lb = 0; *extent = tl_mpi_type_extent(type); return MPI_SUCCESS; }
static inline int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out) { tl_mpi_type_contiguous(count, old, out); return MPI_SUCCESS; }
static inline int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype *out) {
  tl_mpi_type_vector(count, blocklength, stride, old, out);
  return MPI_SUCCESS;
}
static inline int MPI_Type_commit(MPI_Datatype *type) { tl_mpi_type_commit(type); return MPI_SUCCESS; }
static inline int MPI_Type_free(MPI_Datatype *type) { tl_mpi_type_free(type); return MPI_SUCCESS; }

#ifdef __cplusplus
}
#endif

#endif
