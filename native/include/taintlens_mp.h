/*
 * Taintlens message passing for SPMD kernels (`taintlens run --ranks P`): P instances of the module
 * run as ranks 0..P-1, one worker thread each, and pass messages through shared memory. The host
 * side is src/runtime/spmd/. Sizes are in bytes unless named `count`; messages between two ranks
 * arrive in the order sent and their tags must match (TL_MP_ANY_TAG accepts any). One message of
 * up to 16 KiB per pair of ranks is buffered (send returns at once); otherwise send waits for the
 * receiver, chunk by chunk, so two ranks exchanging large messages should use tl_mp_sendrecv. Collectives combine in rank order,
 * so reductions give the same bits however threads are scheduled. For the taint analysis,
 * tl_mp_size() is the source of the parameter `p` and communication carries a cost in `p` and its
 * byte count (library/taintlens_mp.json).
 */
#ifndef TAINTLENS_MP_H
#define TAINTLENS_MP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TL_MP_IMPORT(name) __attribute__((import_module("taintlens_mp"), import_name(#name)))

enum { TL_MP_I32 = 0, TL_MP_I64 = 1, TL_MP_F32 = 2, TL_MP_F64 = 3 };
enum { TL_MP_SUM = 0, TL_MP_MAX = 1, TL_MP_MIN = 2, TL_MP_PROD = 3 };
#define TL_MP_ANY_TAG (-1)

TL_MP_IMPORT(rank) int32_t tl_mp_rank(void);
TL_MP_IMPORT(size) int32_t tl_mp_size(void);
TL_MP_IMPORT(send) void tl_mp_send(const void *buf, int32_t bytes, int32_t dest, int32_t tag);
/* Returns the length of the message received (at most `bytes`). */
TL_MP_IMPORT(recv) int32_t tl_mp_recv(void *buf, int32_t bytes, int32_t source, int32_t tag);
TL_MP_IMPORT(sendrecv) int32_t tl_mp_sendrecv(const void *out, int32_t out_bytes, int32_t dest, int32_t send_tag,
                                              void *in, int32_t in_bytes, int32_t source, int32_t recv_tag);
TL_MP_IMPORT(bcast) void tl_mp_bcast(void *buf, int32_t bytes, int32_t root);
TL_MP_IMPORT(reduce) void tl_mp_reduce(const void *in, void *out, int32_t count, int32_t datatype, int32_t op, int32_t root);
TL_MP_IMPORT(allreduce) void tl_mp_allreduce(const void *in, void *out, int32_t count, int32_t datatype, int32_t op);
TL_MP_IMPORT(barrier) void tl_mp_barrier(void);
/* Seconds since an arbitrary start, as MPI_Wtime. */
TL_MP_IMPORT(wtime) double tl_mp_wtime(void);

#undef TL_MP_IMPORT

#ifdef __cplusplus
}
#endif

#endif
