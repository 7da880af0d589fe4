/* machine.h - what the machine is and can do, as `kbench peaks` and
 * `kbench run` need it: its ceilings (FMA peaks per precision, cache and
 * DRAM bandwidth; the same for each GPU) and the parts they are built from: topology, the clock during the FMA runs, FMA kernels,
 * bandwidth kernels, plateaus, the GPU architecture table and GPU runs. */
#ifndef KB_MACHINE_H
#define KB_MACHINE_H

#include "machine/ceilings/ceilings.h"
#include "machine/cpu_id.h"
#include "kernels/problem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* ---- clock.c ---------------------------------------------------------- */

/* A core-cycle counter of the calling thread: perf_event_open with
 * PERF_COUNT_HW_CPU_CYCLES, user space only. */
typedef struct {
    int fd;                     /* -1 when closed */
} kb_cycle_counter;

/* Open a counter for the calling thread.  Returns 0, or -1 (errno set:
 * ENOENT or EOPNOTSUPP where the machine, often a VM, has no PMU; EACCES
 * under a strict perf_event_paranoid). */
int kb_cycles_open(kb_cycle_counter *c);

/* Cycles counted and seconds the counter ran (the thread was on a CPU)
 * since it was opened.  Returns 0, or -1 when the read fails. */
int kb_cycles_read(const kb_cycle_counter *c, double *cycles, double *running_s);

void kb_cycles_close(kb_cycle_counter *c);

/* The calling thread's clock in GHz from a chain of dependent register
 * adds (1 cycle each, 1e6 per timing): the fastest of `tries` timings.
 * Returns 0 where it cannot run (not x86-64). */
double kb_add_chain_ghz(int tries);

/* ---- fma_peak.c ------------------------------------------------------- */

typedef struct {
    const char *precision;      /* "fp64", "fp32", "bf16", "fp16" */
    const char *kernel;         /* the variant, "fma-avx512-x12", ... */
    int chains;                 /* independent accumulators per thread */
    int lanes;                  /* elements per vector */
    double flops_per_op;        /* per lane per instruction: 2 (FMA) */
    double gflops;              /* measured, all threads, best trial */
    double clock_ghz;           /* mean over threads during the best trial;
                                   0 when no clock source worked */
    const char *clock_source;   /* "perf_event cycles", "dependent-add chain"
                                   or "none" */
    int trials;                 /* timings the figure is the best of */
    bool won;                   /* the best variant of its precision: the
                                   compute ceiling */
} kb_fma_result;

/* Measure every FMA kernel variant (fma_kernels.h) the CPU supports, on
 * `threads` pinned threads, each trial running about trial_s seconds, and
 * keep per precision the best, as ERT does: each variant gets a quarter
 * of `trials` (at least 2), then the fastest of each precision gets
 * `trials` more (at most KB_FMA_MAX_TRIALS), and its figure is the best
 * of all its timings.  The clock of each trial is measured with it:
 * cycles counted by perf_event during the trial on every thread, or,
 * where no thread can open a counter, the dependent-add chain timed on
 * every thread just before and just after the trial (the mean of the
 * two).  Writes up to max results, one per variant, precisions in the
 * table's order, the winner of each flagged `won`; returns how many.
 * Cannot fail: a precision the CPU lacks is left out. */
#define KB_FMA_MAX_TRIALS 64
#define KB_FMA_MAX_VARIANTS 48
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

/* ---- gpu_arch.c ------------------------------------------------------- */

/* The row of gpu_arch.conf that matched a GPU.  Lanes are FMA per SM (CU)
 * per clock, indexed by kb_precision_index; 0: the table gives none. */
#define KB_GPU_ON_FMA (-1)      /* mma: the vendor GEMM runs on the FMA units */
typedef struct {
    char arch[32];              /* "sm_90" */
    char name[32];              /* "hopper" */
    int fma_lanes[KB_PRECISIONS];   /* vector units (CUDA cores) */
    int mma_lanes[KB_PRECISIONS];   /* matrix units, or KB_GPU_ON_FMA */
    double dram_gbps;           /* datasheet bandwidth; 0: none */
} kb_gpu_arch;

/* Match arch ("sm_90", "gfx90a") and the device's name against the table
 * at path (format: gpu_arch.conf's header).  Returns 1 with *out filled
 * from the first matching row, 0 when none matches (why: "sm_xx not in
 * gpu_arch.conf (path ...)"), or -1 when the file cannot be read or a row
 * is malformed (why names path:line). */
int kb_gpu_arch_lookup(const char *path, const char *arch, const char *device,
                       kb_gpu_arch *out, char *why, size_t len);

/* Theoretical GFLOP/s of a precision on the vector units (matrix false)
 * or the matrix units: sms x lanes x 2 x clock_ghz.  Returns 0 with why
 * when there is no figure (unknown precision, "-" in the table, no SM
 * count or clock). */
double kb_gpu_arch_peak(const kb_gpu_arch *a, bool matrix, const char *precision,
                        int sms, double clock_ghz, char *why, size_t len);

/* ---- vendor_gemm.c ---------------------------------------------------- */

/* GFLOP/s of the square GEMM m=n=k=size of type dt (--fpmath strict) on
 * backend b: prepare (untimed), one warm-up run, then the best of `reps`.
 * Returns 1 with *gflops, 0 when b does not support it or it does not fit
 * in device memory (why), -1 on a failure (why). */
struct kb_backend;
int kb_vendor_gemm_gflops(const struct kb_backend *b, kb_dtype dt, int size, int reps,
                          double *gflops, char *why, size_t len);

/* ---- cpu_gemm_peaks.c ------------------------------------------------- */

/* The CPU's vendor-GEMM ("matrix-unit") ceilings: for every vendor
 * backend on the CPU (OpenBLAS, oneDNN, as built) and every precision it
 * supports, its best large square GEMM, added to d as a compute ceiling
 * "<backend>-gemm" with vendor_gemm set.  The size is chosen from d's FMA
 * ceiling of the precision (fp32's where it has none) so that one GEMM
 * takes about a quarter of a second; --quick: 512.  Prints one line per
 * figure or skip to out.  Returns 0, or -1 after a message when a
 * library failed (the others are still measured). */
int kb_cpu_vendor_gemm(kb_device *d, bool quick, FILE *out);

/* ---- gpu_peaks.c ------------------------------------------------------ */

/* fp64 elements per device-memory array: 2^28 (2 GiB), or more where
 * 4 x the L2 is larger (the sizing rule); --quick: 2^20, not under the
 * rule.  Pure function; cannot fail. */
size_t kb_gpu_stream_elements(double l2_bytes, bool quick);

/* Measure every visible GPU of every runtime built in and append one
 * device entry each to c: device-memory bandwidth, FMA peaks, the vendor
 * GEMM's best large shape per precision, and the theoretical figures.
 * Prints a line for each runtime without a device ("no CUDA device (...):
 * GPU ceilings skipped") and each vendor library not built, and the pass
 * times of the bandwidth kernels, on out; failures on stderr.  Returns 0,
 * or -1 when some measurement failed (the others are kept). */
int kb_gpu_peaks(kb_ceilings *c, bool quick, FILE *out);

#endif
