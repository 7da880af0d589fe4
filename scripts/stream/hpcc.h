/* hpcc.h - a minimal, single-process stand-in for HPCC's <hpcc.h>, just
 * enough for HPC Challenge 1.5.0's STREAM/stream.c to compile and run
 * unmodified as one process with OpenMP threads and no MPI library.
 *
 * Why: McCalpin's own stream.c is not packaged in Debian, but Debian's hpcc
 * source package carries STREAM/stream.c, which is McCalpin's stream_mpi.c
 * (revision 5.10) adapted to HPCC.  scripts/stream-compare.sh fetches that
 * file at run time (it is never committed here), compiles it against this
 * header and stream_main.c, and compares its rates with `kbench peaks`.
 *
 * With one rank every collective below degenerates to a copy or a no-op,
 * so the timed loops are exactly HPCC's: only the surroundings are ours.
 * The array size comes from the compile line (-DSTREAM_ARRAY_SIZE=N) in
 * place of HPCC's "fraction of HPL memory" rule. */
#ifndef KBENCH_HPCC_SHIM_H
#define KBENCH_HPCC_SHIM_H

/* clock_gettime() is POSIX, not C: ask for it even under -std=c99. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/* stream.c relies on HPCC's header for all of these. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Elements per array.  10 million is McCalpin's 5.10 default; the script
 * always passes 4 x the last-level cache instead, per STREAM's run rules. */
#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 10000000
#endif

/* stream.c keeps the element count and its loop indices in an int. */
#if STREAM_ARRAY_SIZE > INT_MAX
#error "STREAM_ARRAY_SIZE must fit in an int: HPCC's stream.c counts with int"
#endif

/* ------------------------------------------------------------------------
 * HPCC parameters: only the fields stream.c touches.  outFname is where
 * HPCC_Stream() appends its report (a private temporary file that
 * stream_main.c copies to stdout); the other two are outputs it fills in.
 * ---------------------------------------------------------------------- */
typedef struct {
    char outFname[256 + 1];
    int StreamVectorSize; /* elements per array, set by HPCC_Stream() */
    int StreamThreads;    /* OpenMP threads it saw, set by HPCC_Stream() */
} HPCC_Params;

/* HPCC sizes vectors from the memory HPL may use per process; we take the
 * size the script chose, so the run follows STREAM's 4 x LLC rule. */
static inline int HPCC_LocalVectorSize(HPCC_Params *params, int vecCnt,
                                       size_t size, int pow2)
{
    (void)params;
    (void)vecCnt;
    (void)size;
    (void)pow2;
    return STREAM_ARRAY_SIZE;
}

/* Cache-line-aligned arrays, as in McCalpin's stream.c, whose static
 * arrays the compiler aligns (and as kbench's own arrays are).  HPCC's
 * malloc gives 16 bytes; on a machine where a few cores cannot saturate
 * memory, AVX-512 loads split across lines cost up to ~10 % and would be
 * measured as a kbench/STREAM difference that is only allocation. */
static inline void *HPCC_aligned(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}
#define HPCC_XMALLOC(t, n) ((t *)HPCC_aligned(sizeof(t) * (size_t)(n)))
#define HPCC_free free

#define Mmin(a, b) (((a) < (b)) ? (a) : (b))
#define Mmax(a, b) (((a) > (b)) ? (a) : (b))

/* ------------------------------------------------------------------------
 * Serial MPI: one process is rank 0 of a communicator of size 1.
 * A datatype is its size in bytes, which is all a one-rank copy needs.
 * ---------------------------------------------------------------------- */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;

#define MPI_COMM_WORLD ((MPI_Comm)0)
#define MPI_SUCCESS 0
#define MPI_DOUBLE ((MPI_Datatype)sizeof(double))
#define MPI_INT ((MPI_Datatype)sizeof(int))
#define MPI_MIN ((MPI_Op)1)
#define MPI_MAX ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)

/* Wall-clock seconds.  CLOCK_MONOTONIC can't jump with NTP adjustments
 * in the middle of a timed kernel, unlike gettimeofday(). */
static inline double MPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Nothing to wait for: the OpenMP loops inside are already joined. */
static inline int MPI_Barrier(MPI_Comm comm)
{
    (void)comm;
    return MPI_SUCCESS;
}

static inline int MPI_Comm_size(MPI_Comm comm, int *size)
{
    (void)comm;
    *size = 1;
    return MPI_SUCCESS;
}

static inline int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    (void)comm;
    *rank = 0;
    return MPI_SUCCESS;
}

/* Reducing one rank's values with any operator yields those values. */
static inline int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    (void)op;
    (void)comm;
    memmove(recvbuf, sendbuf, (size_t)count * (size_t)type);
    return MPI_SUCCESS;
}

/* Gathering to the root from one rank is a copy of that rank's block. */
static inline int MPI_Gather(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm)
{
    (void)recvcount;
    (void)recvtype;
    (void)root;
    (void)comm;
    memmove(recvbuf, sendbuf, (size_t)sendcount * (size_t)sendtype);
    return MPI_SUCCESS;
}

/* stream.c calls this only when an allocation failed. */
static inline int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fprintf(stderr, "stream: MPI_Abort(%d)\n", errorcode);
    exit(errorcode ? errorcode : 1);
}

/* Defined in HPCC's STREAM/stream.c, called by stream_main.c. */
int HPCC_Stream(HPCC_Params *params, int doIO, MPI_Comm comm, int world_rank,
                double *copyGBs, double *scaleGBs, double *addGBs,
                double *triadGBs, int *failure);

#endif /* KBENCH_HPCC_SHIM_H */
