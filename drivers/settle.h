/* settle.h - before a case is timed, wait until the process's other
 * threads are idle.
 *
 * Libraries keep pools of worker threads that spin for a while after each
 * call before they sleep: libgomp's (omp, oneDNN, and the driver's own
 * filling, reference and comparison) for milliseconds, OpenBLAS's for
 * 2^OPENBLAS_THREAD_TIMEOUT cycles (0.1 s; also right after it loads).  On
 * a machine with as many threads as cores, a pool left spinning takes a
 * core from the library being timed: OpenBLAS's 0.3 ms fc GEMM ran 2 to
 * 10 times slower after the driver's OpenMP comparison, and whatever case
 * came first ran in 4 ms scheduler ticks while OpenBLAS's pool spun.
 *
 * What is idle is observed, not assumed: no thread but the caller's is
 * running or waiting for a CPU (Linux: the states in /proc/self/task), so
 * no library's spin length is written down here.  A spinning worker that
 * was preempted still counts as busy. */
#ifndef KB_SETTLE_H
#define KB_SETTLE_H

typedef enum {
    KB_SETTLE_OFF,          /* not asked to wait (max_s 0) */
    KB_SETTLE_QUIET,        /* the other threads went idle */
    KB_SETTLE_BUSY,         /* still running when max_s ran out */
    KB_SETTLE_UNAVAILABLE,  /* the threads cannot be listed (not Linux) */
} kb_settle_state;

/* Sleep, a millisecond at a time, until no other thread of this process
 * is runnable, or until max_s seconds passed; at once when max_s <= 0.
 * Sets *waited to the seconds slept (0 when nothing was running). */
kb_settle_state kb_settle_threads(double max_s, double *waited);

#endif
