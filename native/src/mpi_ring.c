/*
 * A ring exchange written as MPI proxy applications write it, checking its own results:
 *   mpi_ring [doubles] [rounds]   (defaults: 16384 doubles = 128 KiB per message, 2 rounds)
 * Each round every rank posts its Isends to both neighbours before the Irecvs (messages far above
 * any eager limit), waits for all of them in one Waitall that also holds an MPI_REQUEST_NULL, and
 * Waits on MPI_REQUEST_NULL. Then: Allgather, a Gather of MPI_CHAR names, Comm_split into even and
 * odd ranks with an Allreduce on each half, Reduce (SUM and MAXLOC), Scan, Alltoall, Probe with
 * MPI_ANY_SOURCE and Get_count, Waitany/Testall on a second exchange, Sendrecv_replace, a line
 * ending in MPI_PROC_NULL, and a vector datatype. Prints one line per check; the exit code is the number of failed checks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int rank = 0;

static void check(int ok, const char *what) {
  if (!ok) {
    failures++;
    printf("rank %d: FAILED %s\n", rank, what);
  } else if (rank == 0) {
    printf("ok %s\n", what);
  }
}

static double value(int from, int round, int i) { return from * 1000003.0 + round * 7.0 + i * 0.5; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 16384;
  int rounds = argc > 2 ? atoi(argv[2]) : 2;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;

  double *out = malloc(sizeof(double) * n), *fromLeft = malloc(sizeof(double) * n), *fromRight = malloc(sizeof(double) * n);
  double received = 0;
  int ringOk = 1;
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < n; i++) out[i] = value(rank, round, i);
    MPI_Request requests[5];
    MPI_Isend(out, n, MPI_DOUBLE, right, 10 + round, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, n, MPI_DOUBLE, left, 20 + round, MPI_COMM_WORLD, &requests[1]);
    requests[2] = MPI_REQUEST_NULL;
    MPI_Irecv(fromLeft, n, MPI_DOUBLE, left, 10 + round, MPI_COMM_WORLD, &requests[3]);
    MPI_Irecv(fromRight, n, MPI_DOUBLE, right, 20 + round, MPI_COMM_WORLD, &requests[4]);
    MPI_Status statuses[5];
    MPI_Waitall(5, requests, statuses);
    MPI_Request none = MPI_REQUEST_NULL;
    MPI_Wait(&none, MPI_STATUS_IGNORE);
    int count;
    MPI_Get_count(&statuses[3], MPI_DOUBLE, &count);
    ringOk &= count == n && statuses[3].MPI_SOURCE == left && statuses[4].MPI_SOURCE == right;
    ringOk &= requests[0] == MPI_REQUEST_NULL && requests[3] == MPI_REQUEST_NULL && none == MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) {
      ringOk &= fromLeft[i] == value(left, round, i) && fromRight[i] == value(right, round, i);
      received += fromLeft[i] + fromRight[i];
    }
  }
  check(ringOk, "ring: Isend before Irecv, Waitall with MPI_REQUEST_NULL, Wait on MPI_REQUEST_NULL, Get_count");

  int *all = malloc(sizeof(int) * size);
  int mine = rank * 10 + 1;
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  int gatherOk = 1;
  for (int r = 0; r < size; r++) gatherOk &= all[r] == r * 10 + 1;
  check(gatherOk, "Allgather");

  char name[4], *names = malloc(4 * size);
  snprintf(name, sizeof name, "r%02d", rank % 100);
  MPI_Gather(name, 4, MPI_CHAR, names, 4, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int namesOk = 1;
    for (int r = 0; r < size; r++) {
      char expected[4];
      snprintf(expected, sizeof expected, "r%02d", r % 100);
      namesOk &= strcmp(names + 4 * r, expected) == 0;
    }
    check(namesOk, "Gather of MPI_CHAR");
  }

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int halfRank, halfSize, halfSum;
  MPI_Comm_rank(half, &halfRank);
  MPI_Comm_size(half, &halfSize);
  MPI_Allreduce(&rank, &halfSum, 1, MPI_INT, MPI_SUM, half);
  int expectSum = 0, expectSize = 0;
  for (int r = rank % 2; r < size; r += 2) expectSum += r, expectSize++;
  /* the key -rank orders each half from its highest world rank down */
  int above = 0;
  for (int r = rank + 2; r < size; r += 2) above++;
  check(halfSum == expectSum && halfSize == expectSize && halfRank == above, "Comm_split (color rank%2, key -rank), Allreduce on each half");
  MPI_Comm_free(&half);
  check(half == MPI_COMM_NULL, "Comm_free");

  double total = 0;
  MPI_Reduce(&received, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double expected = 0;
    for (int round = 0; round < rounds; round++)
      for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++) expected += 2 * value(r, round, i);
    check(total / expected > 1 - 1e-12 && total / expected < 1 + 1e-12, "Reduce SUM of what every rank received");
    printf("ring checksum %.6e over %d ranks\n", total, size);
  }

  struct { double value; int index; } local = { (double)((rank * 7) % size), rank }, best;
  MPI_Allreduce(&local, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  int bestRank = 0;
  for (int r = 1; r < size; r++) if ((r * 7) % size > (bestRank * 7) % size) bestRank = r;
  check(best.index == bestRank && best.value == (double)((bestRank * 7) % size), "Allreduce MAXLOC on MPI_DOUBLE_INT");

  int prefix;
  MPI_Scan(&mine, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(prefix == 10 * rank * (rank + 1) / 2 + rank + 1, "Scan");

  int *to = malloc(sizeof(int) * size), *from = malloc(sizeof(int) * size);
  for (int r = 0; r < size; r++) to[r] = rank * 100 + r;
  MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
  int alltoallOk = 1;
  for (int r = 0; r < size; r++) alltoallOk &= from[r] == r * 100 + rank;
  check(alltoallOk, "Alltoall");

  if (rank != 0) {
    MPI_Send(&mine, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
  } else {
    int probeOk = 1, seen = 0;
    for (int k = 1; k < size; k++) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &status);
      int count, got;
      MPI_Get_count(&status, MPI_INT, &count);
      MPI_Recv(&got, 1, MPI_INT, status.MPI_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      probeOk &= count == 1 && got == status.MPI_SOURCE * 10 + 1;
      seen += status.MPI_SOURCE;
    }
    check(probeOk && seen == size * (size - 1) / 2, "Probe with MPI_ANY_SOURCE, Get_count");
  }

  MPI_Request pair[2];
  int token = rank, fromLeftToken = -1, flag = 0, index = -1;
  MPI_Irecv(&fromLeftToken, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &pair[0]);
  MPI_Isend(&token, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &pair[1]);
  MPI_Waitany(2, pair, &index, MPI_STATUS_IGNORE);
  while (!flag) MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE);
  check(fromLeftToken == left && index >= 0 && pair[0] == MPI_REQUEST_NULL, "Waitany, Testall");

  int passed = rank;
  MPI_Sendrecv_replace(&passed, 1, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(passed == left, "Sendrecv_replace");

  /* a line, not a ring: the ends talk to MPI_PROC_NULL, which sends nothing and receives nothing */
  int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int fromDown = -7;
  MPI_Status lineStatus;
  MPI_Sendrecv(&rank, 1, MPI_INT, up, 8, &fromDown, 1, MPI_INT, down, 8, MPI_COMM_WORLD, &lineStatus);
  int lineCount;
  MPI_Get_count(&lineStatus, MPI_INT, &lineCount);
  check(rank == 0 ? fromDown == -7 && lineStatus.MPI_SOURCE == MPI_PROC_NULL && lineCount == 0 : fromDown == rank - 1 && lineCount == 1, "MPI_PROC_NULL at the ends of a line");

  /* every other element of a 2n array, as one vector datatype */
  int strided[8], packed[4];
  for (int i = 0; i < 8; i++) strided[i] = rank * 8 + i;
  MPI_Datatype everyOther;
  MPI_Type_vector(4, 1, 2, MPI_INT, &everyOther);
  MPI_Type_commit(&everyOther);
  MPI_Sendrecv(strided, 1, everyOther, right, 7, packed, 4, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Type_free(&everyOther);
  check(packed[0] == left * 8 && packed[3] == left * 8 + 6, "Type_vector");

  int worstFailures;
  MPI_Allreduce(&failures, &worstFailures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%s on %d ranks\n", worstFailures == 0 ? "all checks passed" : "some checks FAILED", size);
  MPI_Finalize();
  return worstFailures;
}
