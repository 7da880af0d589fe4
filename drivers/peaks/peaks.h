/* peaks.h - `kbench peaks`: measures the machine's ceilings (FMA peaks per
 * precision, cache and DRAM bandwidth) and the parts it is built from:
 * topology, observed clock, FMA kernels, bandwidth kernels, plateaus. */
#ifndef KB_PEAKS_H
#define KB_PEAKS_H

#include "drivers/peaks/ceilings.h"

#include <stdbool.h>
#include <stddef.h>

/* The verb (peaks_cmd.c).  argv[0] is "peaks"; returns an exit code of
 * drivers/commands.h. */
int kb_cmd_peaks(int argc, char **argv);

/* ---- topology.c ------------------------------------------------------- */

/* Cache sizes are per instance; *_count is the number of instances on the
 * machine (0 when the level is absent or unknown). */
typedef struct {
    char source[16];            /* "hwloc" or "sysfs" */
    char model[160];
    int cores;                  /* physical cores */
    int pus;                    /* hardware threads */
    double cache_bytes[3];      /* L1d, L2, L3 per instance */
    int cache_count[3];
} kb_topology;

/* Fill t from hwloc when built with it, else from sysfs and /proc/cpuinfo.
 * Returns 0, or -1 with err set when neither gives a core count. */
int kb_topology_detect(kb_topology *t, char *err, size_t errlen);

/* The CPUs this process may run on, in order, as ids in cpus[max], to pin
 * thread i to cpus[i % n].  Returns n; 0 when OpenMP binds the threads
 * itself (OMP_PROC_BIND set) or sched_getaffinity fails: callers then
 * leave thread placement to OpenMP. */
int kb_allowed_cpus(int *cpus, int max);

/* Pin the calling thread to cpu.  Returns 0, or -1 (errno set). */
int kb_pin_self(int cpu);

/* The "model name" of /proc/cpuinfo into dst[len], or "unknown" (non-x86
 * kernels and containers without /proc leave it out).  Can't fail. */
void kb_cpu_model(char *dst, size_t len);

/* This host's name into dst[len], or "unknown".  Can't fail. */
void kb_host_name(char *dst, size_t len);

/* The current time as ISO 8601 UTC ("2026-11-30T07:04:35Z") into
 * dst[len], or "" when the clock cannot be read.  Can't fail. */
void kb_utc_date(char *dst, size_t len);

/* ---- clock.c ---------------------------------------------------------- */

/* The observed core clock in GHz with every thread busy: a chain of
 * dependent integer adds (1 cycle each) timed on each pinned thread,
 * averaged.  Where that cannot run (not x86-64) it reads the "cpu MHz"
 * lines of /proc/cpuinfo instead.  Writes "add-chain" or "cpuinfo" to
 * source[len]; returns 0 GHz when neither works. */
double kb_observed_clock_ghz(int threads, char *source, size_t len);

/* ---- fma_peak.c ------------------------------------------------------- */

typedef struct {
    const char *precision;      /* "fp64", "fp32", "bf16", "fp16" */
    const char *kernel;         /* "fma-avx512", ... */
    int lanes;                  /* elements per vector */
    double flops_per_op;        /* per lane per instruction: 2 (FMA) */
    double gflops;              /* measured, all threads */
} kb_fma_result;

/* Measure the widest FMA kernel the CPU supports for each precision it
 * has, on `threads` pinned threads, each trial running about trial_s
 * seconds, best of `trials`.  Writes up to max results; returns how many.
 * Cannot fail: a precision the CPU lacks is left out. */
int kb_fma_peaks(int threads, double trial_s, int trials, kb_fma_result *out,
                 int max);

/* ---- bandwidth.c ------------------------------------------------------ */

typedef struct {
    const char *name;           /* "copy", "scale", "add", "triad", "read" */
    double gbps;                /* best, STREAM byte counting */
    double min_s, avg_s, max_s; /* over the repetitions after the first */
} kb_stream_result;

#define KB_STREAM_KERNELS 5

/* STREAM's kernels on three arrays of n doubles each (STREAM's rule: n*8
 * >= 4 x LLC), `reps` >= 2 repetitions of the sequence copy, scale, add,
 * triad (then read), the first discarded, the best reported.  Threads are
 * pinned and first-touch the data they use.  The results are checked
 * against a replayed scalar computation, as STREAM does.  Returns 0, or -1
 * with err set (out of memory, wrong results). */
int kb_stream(int threads, size_t n, int reps,
              kb_stream_result out[KB_STREAM_KERNELS], char *err, size_t errlen);

/* The working-set sweep: for sizes from min_bytes to max_bytes (total over
 * all threads), growing by 2^(1/steps_per_octave), the best bandwidth of
 * an in-place update a[i] = a[i]*s + t (2 words per element; each thread
 * updates its own slice, many passes per timing).  Writes up to max
 * points; returns how many, or -1 with err set (out of memory). */
int kb_bandwidth_sweep(int threads, double min_bytes, double max_bytes,
                       int steps_per_octave, double trial_s,
                       kb_sweep_point *out, int max, char *err, size_t errlen);

/* ---- plateaus.c ------------------------------------------------------- */

#define KB_MEM_LEVELS 4           /* L1, L2, L3, DRAM */

typedef struct {
    bool found;
    double gbps;                /* median of the plateau's points */
    double from_bytes, to_bytes;
    int npoints;
} kb_plateau;

/* Detect the L1, L2, L3 and DRAM plateaus in a sweep sorted by size.  A
 * plateau is a run of >= 3 consecutive points each within rel_tol of the
 * run's median.  caps[3] are the total L1d, L2, L3 capacities: the
 * plateau of a level is the longest run lying in (previous capacity,
 * capacity]; DRAM's lies above the L3 capacity.  With caps unknown (all
 * 0) the runs, in size order, are taken as the levels from L1 on, and
 * the last as DRAM only when there are four.  A level without a plateau
 * has found = false.  Pure function; cannot fail. */
void kb_detect_plateaus(const kb_sweep_point *pts, int n, const double caps[3],
                        double rel_tol, kb_plateau out[KB_MEM_LEVELS]);

/* "L1", "L2", "L3", "DRAM" for level 0..3. */
const char *kb_mem_level_name(int level);

#endif
