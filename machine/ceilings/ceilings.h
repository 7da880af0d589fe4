/* ceilings.h - measured machine ceilings (compute peaks, memory bandwidths)
 * and their JSON file, schema "kbench.ceilings/2" (results/CEILINGS.md;
 * files of schema 1 are still read).
 *
 * A ceilings file holds one entry per device.  `kbench peaks` writes the
 * "cpu" device and one entry per visible GPU (kind "cuda" or "hip", with
 * its identity), and the roofline placement picks the entry whose kind
 * matches the backend's device. */
#ifndef KB_CEILINGS_H
#define KB_CEILINGS_H

#include "machine/ceilings/cpu_id.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_CEILINGS_SCHEMA "kbench.ceilings/2"
/* Schema 1 lacked the clock per compute ceiling and the CPU identity, and
 * its theoretical figures assumed --fma-ports; it is read all the same. */
#define KB_CEILINGS_SCHEMA_V1 "kbench.ceilings/1"
#define KB_MAX_DEVICES 17    /* the CPU and up to 16 GPUs */
#define KB_MAX_CEILINGS 32
#define KB_MAX_SWEEP 128
#define KB_MAX_VARIANTS 48

typedef enum { KB_CEIL_COMPUTE, KB_CEIL_MEMORY } kb_ceiling_kind;

/* One ceiling.  Compute: level is the precision ("fp64", "fp32", "bf16",
 * "fp16"), unit "GFLOP/s".  Memory: level is "L1", "L2", "L3" or "DRAM",
 * unit "GB/s".  theoretical is 0 when there is no theoretical value;
 * for a compute ceiling, note then says why. */
typedef struct {
    kb_ceiling_kind kind;
    char kernel[48];        /* what measured it: "fma-avx512", "stream-triad" */
    char level[16];
    char unit[16];
    double value;           /* measured */
    double theoretical;
    bool stream_rule;       /* memory: measured under STREAM's sizing rules */
    /* compute only, 0 when unknown: */
    double clock_ghz;               /* measured during the run */
    double flop_per_cycle_core;     /* value / (clock_ghz x cores used) */
    double peak_flop_per_cycle_core;   /* microarch.conf: pipes x lanes x 2 */
    int cores_used;
    char note[256];                 /* why theoretical is null, else ""; a
                                       GPU's DRAM: both theoretical figures */
    bool vendor_gemm;               /* a vendor library's best large GEMM
                                       (the matrix-unit ceiling), not FMA */
    /* An FMA ceiling that a vendor GEMM of its precision beat (the
     * invariant of kb_device_check_fma): that GEMM and its figure; ""
     * and 0 when none did. */
    char exceeded_by[48];
    double exceeded_value;
} kb_ceiling;

/* One FMA kernel variant a CPU's compute ceiling was chosen from (the
 * device's "fma_variants"; files without them are read with none).  The
 * winner of each precision is that precision's FMA ceiling. */
typedef struct {
    char precision[16];     /* "fp64", ... */
    char kernel[48];        /* "fma-avx512-x12", "cc-avx2-x12", ... */
    int chains, lanes;
    double gflops;          /* best of its trials */
    double clock_ghz;       /* during that trial; 0 when unknown */
    int trials;
    bool won;
} kb_fma_variant;

/* One point of the working-set sweep. */
typedef struct {
    double bytes;           /* total working set, all threads */
    double gbps;
} kb_sweep_point;

/* Cache sizes are totals over all instances the threads use (bytes; 0 when
 * unknown). */
typedef struct {
    char kind[16];          /* "cpu", "cuda", "hip" */
    char model[160];
    int cores, threads;
    char affinity[256];
    char clock_source[32];  /* "perf_event cycles", "dependent-add chain",
                               "none"; the clocks are per compute ceiling */
    bool have_cpu_id;       /* cpu_id below was recorded (kind "cpu") */
    kb_cpu_id cpu_id;
    char topology_source[16];  /* "hwloc" or "sysfs" */
    double cache_bytes[3];  /* L1d, L2, L3 (a GPU: L2 only) */
    /* A GPU's identity (kind "cuda", "hip"; kb_gpu_props), when have_gpu */
    bool have_gpu;
    int index;              /* among the visible devices */
    char uuid[48];
    char pci_bus_id[32];
    char arch[32];          /* "sm_90", "gfx90a" */
    int sm_count;           /* SMs or CUs */
    double clock_ghz;       /* peak SM clock the device reports */
    double memory_bytes;
    int ecc;                /* 1 on, 0 off, -1 unknown */
    char driver[32];        /* driver version, "13.0" */
    int nceilings;
    kb_ceiling ceilings[KB_MAX_CEILINGS];
    int nsweep;
    kb_sweep_point sweep[KB_MAX_SWEEP];
    int nvariants;          /* a CPU's FMA variants, 0 when not recorded */
    kb_fma_variant variants[KB_MAX_VARIANTS];
} kb_device;

typedef struct {
    char host[128];
    char date[40];          /* ISO 8601 UTC, time of the measurement */
    char kbench_version[32];
    char compiler[96];
    char build_type[32];
    char build_flags[512];
    char git_commit[64];
    int ndevices;
    kb_device devices[KB_MAX_DEVICES];
} kb_ceilings;

/* Append a ceiling to d.  Returns the new entry (zeroed but for the given
 * fields), or NULL when d already holds KB_MAX_CEILINGS. */
kb_ceiling *kb_device_add_ceiling(kb_device *d, kb_ceiling_kind kind,
                                  const char *kernel, const char *level,
                                  double value, double theoretical);

/* The first device of the given kind ("cpu", ...), or NULL. */
const kb_device *kb_ceilings_device(const kb_ceilings *c, const char *kind);

/* The highest ceiling of d with this kind and level, preferring those
 * measured under STREAM's rule, or NULL.  Memory levels compare
 * case-insensitively ("dram" finds "DRAM"). */
const kb_ceiling *kb_device_best(const kb_device *d, kb_ceiling_kind kind,
                                 const char *level);

/* The invariant that no vendor kernel beats the compute ceiling: for each
 * precision, an FMA ceiling (not vendor_gemm) below the best vendor GEMM
 * of its precision is wrong.  Records the GEMM in the FMA ceiling's
 * exceeded_by and exceeded_value and writes one line per breach to msg
 * ("fp32: FMA ceiling fma-avx512-x12 274.0 GFLOP/s is below openblas-gemm's
 * 281.0 (by 2.6 %): the FMA ceiling is wrong, too low by at least that, or
 * the library uses a unit the FMA kernels do not (a matrix unit such as
 * AMX); the fp32 roof is openblas-gemm's"; "" when it holds).  Placement is unaffected:
 * the roof of a precision is its highest ceiling (kb_device_best), so a
 * case is judged against the vendor GEMM there.  Returns the number of
 * precisions where it does not hold; cannot fail. */
int kb_device_check_fma(kb_device *d, char *msg, size_t len);

/* Write c to path as indented JSON.  Returns 0, or -1 with err naming the
 * path and the reason (cannot open or write, out of memory). */
int kb_ceilings_save(const kb_ceilings *c, const char *path, char *err,
                     size_t errlen);

/* Parse a ceilings document held in text.  Returns 0, or -1 with err
 * saying what is wrong (not JSON, wrong schema, a missing or bad field,
 * named with its device and ceiling index). */
int kb_ceilings_parse(const char *text, kb_ceilings *out, char *err,
                      size_t errlen);

/* Read and parse a ceilings file.  Returns 0, or -1 with err naming the
 * path and the reason (cannot open, too large, or as kb_ceilings_parse). */
int kb_ceilings_load(const char *path, kb_ceilings *out, char *err,
                     size_t errlen);

#endif
