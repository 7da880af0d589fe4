/* clock.c - the core clock during the FMA runs, for the theoretical peaks:
 * a per-thread perf_event cycle counter where the kernel offers one, else
 * a timed chain of dependent register adds. */
#define _GNU_SOURCE   /* syscall */
#include "drivers/common/clock.h"
#include "machine/machine.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int kb_cycles_open(kb_cycle_counter *c)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    /* user space only: allowed at perf_event_paranoid 2, and the FMA
     * loop runs there */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
    /* pid 0, cpu -1: the calling thread, wherever it runs */
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    c->fd = fd < 0 ? -1 : (int)fd;
    return c->fd < 0 ? -1 : 0;
}

int kb_cycles_read(const kb_cycle_counter *c, double *cycles, double *running_s)
{
    uint64_t v[2];   /* value, time running (ns) */
    if (c->fd < 0 || read(c->fd, v, sizeof v) != (ssize_t)sizeof v)
        return -1;
    *cycles = (double)v[0];
    *running_s = 1e-9 * (double)v[1];
    return 0;
}

void kb_cycles_close(kb_cycle_counter *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* 1000 dependent adds of a register, the architecture's way.  Each
 * takes one cycle on every x86-64 core, and on the Neoverse and
 * Cortex-A cores (their software optimization guides).  Not `add $1`:
 * Golden Cove's renamer folds immediate adds (a chain of them read
 * 15 GHz on a 2.1 GHz Emerald Rapids).  The wall time is kb_now's
 * clock_gettime: on aarch64 the generic timer (CNTVCT_EL0) through the
 * vDSO, a fixed-rate count like a constant TSC, not the core's cycles,
 * hence the chain. */
#if defined(__x86_64__)
#define ADD_1000 ".rept 1000\n\taddq %1, %0\n\t.endr"
#elif defined(__aarch64__)
#define ADD_1000 ".rept 1000\n\tadd %0, %0, %1\n\t.endr"
#endif

#ifdef ADD_1000
static double add_chain_once(void)
{
    enum { BLOCKS = 1000 };   /* 1e6 cycles: 0.2-0.5 ms */
    uint64_t x = 0, one = 1;
    __asm__ volatile("" : "+r"(one));   /* the compiler cannot know it is 1 */
    double t0 = kb_now();
    for (int b = 0; b < BLOCKS; b++)
        __asm__ volatile(ADD_1000 : "+r"(x) : "r"(one));
    double dt = kb_now() - t0;
    return x == (uint64_t)BLOCKS * 1000 && dt > 0 ? 1e-9 * (double)x / dt : 0;
}
#endif

double kb_add_chain_ghz(int tries)
{
    double best = 0;
#ifdef ADD_1000
    /* a preemption or an interrupt only makes a timing slower: the
     * fastest is the clock */
    for (int i = 0; i < tries; i++) {
        double g = add_chain_once();
        best = g > best ? g : best;
    }
#else
    (void)tries;
#endif
    return best;
}
