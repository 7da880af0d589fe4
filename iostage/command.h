/* command.h - what `kbench io gen|run|checkpoint` asks for: the request
 * the verb's option table fills (drivers/io/io_verb.c), checked across
 * options, settled from the profile or the DLIO config, and run. */
#ifndef KB_IO_COMMAND_H
#define KB_IO_COMMAND_H

#include "iostage/checkpoint/options.h"
#include "iostage/gen.h"
#include "iostage/pipeline.h"
#include "drivers/provenance.h"

#include <stdbool.h>
#include <stdint.h>

/* Everything the options of gen, run and checkpoint can set (the verb's
 * option table, drivers/io, fills it). */
typedef struct {
    const char *profile, *profiles, *dir, *engine, *decode, *compute;
    const char *dlio_config;        /* DLIO workload YAML, or NULL */
    bool dlio_layout;
    char **overrides;               /* key=value arguments for the YAML */
    int noverrides;
    char data_folder[4096];         /* dataset.data_folder: --dir default */
    kb_io_gen_opts gen;
    kb_io_run_opts run;
    kb_io_ckpt_opts ckpt;           /* the plan's command-line changes */
    const char *ckpt_dir;           /* run: --checkpoint-dir */
    int64_t bytes;
    int64_t rank, ranks;            /* --rank/--ranks, -1/0 when not given */
    int64_t steps;                  /* --steps, 0 when not given */
    kb_provenance prov;             /* for the records of run and checkpoint */
    int drop_last;                  /* --drop-last yes|no, -1 not given */
    bool fsync;
    bool seed_given;                /* --seed: else the profile's seed */
    int64_t threads, depth, optimizer_bytes;   /* as parsed, then copied */
} kb_io_request;

/* The checks across options; argv are the positional arguments, a DLIO
 * config's key=value overrides.  Returns 0, or KB_IO_USAGE (printed). */
int kb_io_request_check(const char *verb, kb_io_request *o, int argc,
                        char **argv);

/* Load the profile (or DLIO config), settle the options of sub-verb verb
 * ("gen", "run" or "checkpoint") and run it.  Returns 0 or a stage
 * result (iostage/stage.h) with a message in err. */
int kb_io_request_run(const char *verb, kb_io_request *o, char *err, size_t len);

#endif
