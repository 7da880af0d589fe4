/* run.h - what `kbench run` was asked to do: the selected problems and
 * backends and the measurement options.  cmd_run.c fills it from the
 * command line (checking everything first); run.c executes it. */
#ifndef KB_RUN_H
#define KB_RUN_H

#include "backends/backend.h"
#include "kernels/batch.h"
#include "machine/ceilings/ceilings.h"
#include "reference/reference.h"

#include <stdbool.h>
#include <stdint.h>

#define KB_RUN_MAX_BACKENDS 32

typedef struct {
    kb_problem_list problems;
    /* models[i] is the catalog problems.items[i] came from, "" for
     * --desc and --batch problems; kept in step by kb_run_add. */
    char (*models)[KB_MODEL_NAME_MAX];
    size_t models_cap;

    const kb_backend *backends[KB_RUN_MAX_BACKENDS];
    int nbackends;
    /* Backends left out of the default set (no --backend) because their
     * device is absent: counted in the summary, never run. */
    const kb_backend *left_out[KB_RUN_MAX_BACKENDS];
    int nleft_out;

    int threads;               /* 0: OpenMP's default */
    kb_backend_config device;  /* --device, --tuning, --launches,
                                  --flush-l2: every backend's configure() */
    int64_t reps;              /* timed repetitions, at least */
    double min_time;           /* seconds of timed running, at least */
    int64_t max_reps;          /* timed samples, at most (0: no cap) */
    int64_t warmup;            /* untimed runs before timing, at least */
    double warmup_time;        /* ... for at least this many seconds */
    double settle;             /* before a case's warm-up, wait up to this
                                  many seconds for other threads to go idle
                                  (drivers/settle.h); 0: don't */
    uint64_t seed;
    kb_fill_mode fill;         /* --fill: VALIDATION (integer) or FINE */
    int64_t check_points;      /* sampled-validation points, 0: default */

    const char *json_path;     /* NULL: none */
    const char *csv_path;
    const char *dump_dir;
    const char *peaks_path;    /* --peaks FILE, NULL: none */
    const char *roof_level;    /* --roof-level: "auto" or L1/L2/L3/DRAM */
    kb_ceilings *ceilings;     /* loaded from peaks_path, owned */
    double llc_bytes;          /* last-level cache for byte counts, 0: unknown */
    bool result_lines;
    bool quiet;                /* no table on stdout */
    bool training;             /* --training: the problems are training
                                  steps (drivers/training/passes.h); roll
                                  them up (rollup.h) */
    bool training_filtered;    /* --kernel/--layer left passes of a step out */

    int argc;                  /* the command line, for provenance */
    char **argv;
} kb_run_opts;

/* Defaults: reps 5, min_time 0.2 s, max_reps 10000, warmup 1 and 10 ms,
 * settle 1 s, seed 42, the integer fill, device 0, one launch per sample,
 * the L2 flushed, nothing selected. */
void kb_run_opts_init(kb_run_opts *o);
void kb_run_opts_free(kb_run_opts *o);

/* Append every problem of l to o, from catalog `model` ("" for none).
 * Returns 0, or -1 when out of memory (o keeps what it had). */
int kb_run_add(kb_run_opts *o, const kb_problem_list *l, const char *model);

/* One thread count for OpenMP and every library pool (OpenBLAS has its
 * own): --threads, else OpenMP's default (OMP_NUM_THREADS or the cores).
 * Called before the memory check, since workspaces sized per thread
 * (extra_bytes) depend on it, and so before kb_run_execute.  Can't fail. */
void kb_run_apply_threads(const kb_run_opts *o);

/* Hand o->device to every selected backend that takes device settings.
 * Returns 0, or -1 after printing the backend and what it refused. */
int kb_run_configure_backends(const kb_run_opts *o);

/* Run every problem on every backend of o (threads already applied),
 * writing records as they finish.  Returns the exit code (commands.h):
 * 0 (MISTRUSTED cases allowed), 1 (some FAILED), 3 (some ERROR or a
 * writer failed), 2 (an output file or --dump directory cannot be
 * created, before anything ran), or 128+signo when interrupted. */
int kb_run_execute(const kb_run_opts *o);

#endif
