/*
 * A subset of MPI on top of taintlens_mp.h, so a kernel written against it compiles unchanged for
 * `taintlens ... --ranks P`: MPI_Init/Finalize/Comm_rank/Comm_size/Send/Recv/Sendrecv/Bcast/Reduce/
 * Allreduce/Barrier/Wtime, the communicator MPI_COMM_WORLD, the types MPI_INT, MPI_LONG_LONG,
 * MPI_FLOAT, MPI_DOUBLE and the operators MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD. Not supported:
 * other communicators, MPI_ANY_SOURCE, non-blocking calls, derived types. Messages between two
 * ranks arrive in the order sent (tags must match, or MPI_ANY_TAG).
 */
#ifndef TAINTLENS_MPI_H
#define TAINTLENS_MPI_H

#include "taintlens_mp.h"

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR, count; } MPI_Status;

#define MPI_COMM_WORLD 0
#define MPI_SUCCESS 0
#define MPI_INT TL_MP_I32
#define MPI_LONG_LONG TL_MP_I64
#define MPI_FLOAT TL_MP_F32
#define MPI_DOUBLE TL_MP_F64
#define MPI_SUM TL_MP_SUM
#define MPI_MAX TL_MP_MAX
#define MPI_MIN TL_MP_MIN
#define MPI_PROD TL_MP_PROD
#define MPI_ANY_TAG TL_MP_ANY_TAG
#define MPI_STATUS_IGNORE ((MPI_Status *)0)

static inline int tl_mpi_type_size(MPI_Datatype type) {
  return type == MPI_LONG_LONG || type == MPI_DOUBLE ? 8 : 4;
}

static inline int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return MPI_SUCCESS; }
static inline int MPI_Finalize(void) { return MPI_SUCCESS; }
static inline int MPI_Comm_rank(MPI_Comm comm, int *rank) { (void)comm; *rank = tl_mp_rank(); return MPI_SUCCESS; }
static inline int MPI_Comm_size(MPI_Comm comm, int *size) { (void)comm; *size = tl_mp_size(); return MPI_SUCCESS; }
static inline double MPI_Wtime(void) { return tl_mp_wtime(); }
static inline int MPI_Barrier(MPI_Comm comm) { (void)comm; tl_mp_barrier(); return MPI_SUCCESS; }

static inline int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  (void)comm;
  tl_mp_send(buf, count * tl_mpi_type_size(type), dest, tag);
  return MPI_SUCCESS;
}

static inline void tl_mpi_status(MPI_Status *status, int source, int tag, int bytes, MPI_Datatype type) {
  if (!status) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count = bytes / tl_mpi_type_size(type);
}

static inline int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  (void)comm;
  int bytes = tl_mp_recv(buf, count * tl_mpi_type_size(type), source, tag);
  tl_mpi_status(status, source, tag, bytes, type);
  return MPI_SUCCESS;
}

static inline int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                               MPI_Comm comm, MPI_Status *status) {
  (void)comm;
  int bytes = tl_mp_sendrecv(sendbuf, sendcount * tl_mpi_type_size(sendtype), dest, sendtag,
                             recvbuf, recvcount * tl_mpi_type_size(recvtype), source, recvtag);
  tl_mpi_status(status, source, recvtag, bytes, recvtype);
  return MPI_SUCCESS;
}

static inline int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  (void)comm;
  tl_mp_bcast(buf, count * tl_mpi_type_size(type), root);
  return MPI_SUCCESS;
}

static inline int MPI_Reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  (void)comm;
  tl_mp_reduce(in, out, count, type, op, root);
  return MPI_SUCCESS;
}

static inline int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  (void)comm;
  tl_mp_allreduce(in, out, count, type, op);
  return MPI_SUCCESS;
}

#endif
