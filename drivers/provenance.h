/* provenance.h - where and how a measurement ran (host, CPU identity,
 * threads and affinity, build, libraries, date, seed, command line): the
 * `run` record of kbench run and every record of kbench io carry it. */
#ifndef KB_PROVENANCE_H
#define KB_PROVENANCE_H

#include "machine/cpu_id.h"

#include <cjson/cJSON.h>
#include <stdint.h>

/* Provenance, gathered once per run or io sub-verb. */
typedef struct {
    char host[128];
    char cpu_model[160];
    kb_cpu_id cpu_id;                /* vendor, family, model, stepping,
                                        microcode, caches, kernel, governor,
                                        microarchitecture (cpu_id.h) */
    int cores_online;
    int threads;                     /* OpenMP threads used */
    char affinity[256];              /* "0-1" from sched_getaffinity */
    char omp_proc_bind[32], omp_places[64];
    char compiler[96];               /* id and version */
    char build_type[32];
    char build_flags[512];
    char git_commit[64];
    char kbench_version[32];
    char date[40];                   /* ISO 8601 UTC, start of run */
    uint64_t seed;
    const char *fill;                /* --fill: "integer" or "fine" */
    /* the measurement rule every case of the run followed */
    int64_t warmup, reps, max_reps;
    double warmup_time, min_time, settle_max;
    char command_line[2048];
    char libraries[512];             /* "OpenMP 201511, cJSON 1.7.15" */
} kb_provenance;

/* Fill p for the verb argv[0..argc) (argc 0: the command line reads
 * "kbench"), with `threads` and `seed` as the verb uses them; fill and the
 * measurement rule are the caller's (run sets them).  Cannot fail:
 * anything unavailable reads "unknown". */
void kb_provenance_collect(kb_provenance *p, int argc, char **argv,
                           int threads, uint64_t seed);

/* Add the fields every record family with provenance shares to o:
 * kbench_version, git_commit, date, host, cpu_model, cpu_id, cores_online,
 * threads, affinity, omp_proc_bind, omp_places, compiler, build_type,
 * build_flags, libraries, seed and command_line (results/SCHEMA.md, the
 * run record).  0, or -1 when out of memory. */
int kb_provenance_json(const kb_provenance *p, cJSON *o);

#endif
