/* io_verb.c - the `kbench io` verb: sub-verbs gen, run and checkpoint, their
 * options, and the mapping of results to exit codes. */
#include "iostage/checkpoint/checkpoint.h"
#include "iostage/checkpoint/options.h"
#include "iostage/decode/decoder.h"
#include "iostage/dlio/config.h"
#include "iostage/formats/gen.h"
#include "iostage/merge/merge.h"
#include "iostage/pipeline.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "drivers/provenance.h"
#include "iostage/formats/format.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig) { kb_io_interrupted = sig; }

/* Exit code of a stage result. */
static int exit_code(int rc)
{
    if (kb_io_interrupted)
        return 128 + kb_io_interrupted;
    switch (rc) {
    case 0: return KB_EXIT_OK;
    case KB_IO_CORRUPT: return KB_EXIT_VALIDATION;
    case KB_IO_USAGE: return KB_EXIT_USAGE;
    default: return KB_EXIT_RUNTIME;
    }
}

/* Everything the sub-verbs' options can set. */
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
} cmd_opts;

/* Defaults the table's do not say. */
static void io_init(void *opts)
{
    cmd_opts *o = opts;
    o->gen.scale = 1;
    o->gen.seed = o->run.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = ncpu > 0 ? ncpu : 1;
    /* run.prefetch 0: the profile's, else 2 (finish_run_opts) */
    o->rank = -1;
    o->drop_last = -1;
}

/* The checks across options, and the positional arguments, which are a
 * DLIO config's key=value overrides.  0 or KB_IO_USAGE (printed). */
static int check_opts(const char *verb, cmd_opts *o, int argc, char **argv)
{
    o->gen.threads = (int)o->threads;
    o->run.depth = (unsigned)o->depth;
    o->ckpt.plan.optimizer_bytes = (uint64_t)o->optimizer_bytes;
    o->overrides = argv;
    o->noverrides = argc;
    /* DLIO takes its key=value overrides after its workload= */
    for (int i = 0; i < o->noverrides; i++)
        if (!(o->dlio_config || o->dlio_layout) ||
            !strchr(o->overrides[i], '=')) {
            fprintf(stderr, "kbench io %s: unexpected argument '%s'%s\n",
                    verb, o->overrides[i],
                    strchr(o->overrides[i], '=')
                        ? " (key=value overrides need --dlio-config or "
                          "--dlio-layout)"
                        : "");
            return KB_IO_USAGE;
        }
    if (o->profile && (o->dlio_config || o->dlio_layout)) {
        fprintf(stderr, "kbench io %s: --profile and --dlio-config/"
                "--dlio-layout are exclusive\n", verb);
        return KB_IO_USAGE;
    }
    if (!o->dir && !o->dlio_config) {
        fprintf(stderr, "kbench io %s: --dir is required\n", verb);
        return KB_IO_USAGE;
    }
    return 0;
}

/* --profile from the profile file. */
static int load_kbench_profile(const cmd_opts *o, kb_io_profile *p,
                               bool optional, char *err, size_t len)
{
    if (!o->profile) {
        if (optional)
            return 0;
        snprintf(err, len, "--profile is required");
        return KB_IO_USAGE;
    }
    return kb_io_profile_find(o->profiles ? o->profiles
                                          : kb_io_profiles_path(),
                              o->profile, p, err, len);
}

/* Load --profile, or the profile a DLIO config makes (--dlio-layout
 * alone: DLIO's defaults, the files counted when the run opens the
 * dataset), then the command line's loop options over it.  The profile
 * is required unless optional.  0 or a stage error. */
static int load_profile(cmd_opts *o, kb_io_profile *p, bool optional,
                        char *err, size_t len)
{
    int rc = 0;
    if (o->dlio_config || o->dlio_layout) {
        rc = kb_io_dlio_config_load(o->dlio_config, o->overrides,
                                    o->noverrides, p, o->data_folder,
                                    sizeof o->data_folder, err, len);
        /* --dir's default: the data folder, but not for the checkpoint
         * verb (optional), whose default is the checkpoint folder */
        if (!rc && !o->dir && !optional)
            o->dir = o->data_folder;
    } else {
        rc = load_kbench_profile(o, p, optional, err, len);
    }
    if (rc)
        return rc;
    if (o->drop_last >= 0)
        p->drop_last = o->drop_last;
    if (o->steps)
        p->max_steps = o->steps;
    if (!o->run.epochs)
        o->run.epochs = p->epochs ? p->epochs : 1;
    if (!o->seed_given && p->seeded)
        o->gen.seed = o->run.seed = p->seed;
    return kb_io_rank_detect(o->rank, o->ranks, &o->run.rank, err, len);
}

/* Engine by name, or a message: unknown, or missing from this build. */
static const kb_io_engine *find_engine(const char *name, char *err,
                                       size_t len)
{
    const kb_io_engine *e = kb_io_engine_find(name);
    if (!e)
        snprintf(err, len, "--engine %s: expected pread, io_uring or mmap",
                 name);
    else if (e->missing)
        snprintf(err, len, "--engine %s unavailable: %s", name, e->missing);
    return e && !e->missing ? e : NULL;
}

/* Settle the run's options from the profile and the command line. */
static int finish_run_opts(cmd_opts *o, const kb_io_profile *p, char *err,
                           size_t len)
{
    kb_io_run_opts *r = &o->run;
    r->dir = o->dir;
    if (!(r->engine = find_engine(o->engine, err, len)))
        return o->engine && kb_io_engine_find(o->engine) ? KB_IO_ERROR
                                                         : KB_IO_USAGE;
    if (strcmp(o->decode, "none") == 0)
        r->decoder = &kb_io_decode_parse;
    else if (strcmp(o->decode, "auto") == 0)
        r->decoder = kb_io_decoder_find(p->decode);
    else {
        snprintf(err, len, "--decode %s: expected auto or none", o->decode);
        return KB_IO_USAGE;
    }
    if (r->decoder->missing) {
        snprintf(err, len, "profile %s: decode %s unavailable: %s (--decode "
                 "none still reads and verifies it)", p->name,
                 r->decoder->name, r->decoder->missing);
        return KB_IO_ERROR;
    }
    if (!r->readers)
        r->readers = p->readers;
    if (!r->prefetch)
        r->prefetch = p->prefetch ? p->prefetch : 2;
    if (!r->batch)
        r->batch = p->batch;
    r->compute_sleep = p->compute_seconds;
    if (!o->compute)
        return 0;
    if (strncmp(o->compute, "sleep:", 6) == 0)
        return kb_parse_double("io run", "--compute sleep:", o->compute + 6, 0,
                               1e9, &r->compute_sleep) ? KB_IO_USAGE : 0;
    if (strncmp(o->compute, "backend:", 8) == 0 && o->compute[8]) {
        r->compute_backend = o->compute + 8;   /* checked when opened */
        r->compute_sleep = -1;
        return 0;
    }
    snprintf(err, len, "--compute %s: expected sleep:SECONDS or "
             "backend:NAME", o->compute);
    return KB_IO_USAGE;
}

/* The checkpoint options of `kbench io checkpoint` (verb) or of a run's
 * schedule: the profile's plan (a DLIO config's checkpoint.*) with the
 * command line's changes.  A run checkpoints only with --checkpoint-dir.
 * 0 or a stage error. */
static int finish_ckpt_opts(cmd_opts *o, const kb_io_profile *p, bool verb,
                            char *err, size_t len)
{
    kb_io_ckpt_opts *c = &o->ckpt;
    kb_io_ckpt_plan cmd = c->plan;
    if (cmd.every_steps && cmd.every_epochs) {
        snprintf(err, len, "--every-steps and --every-epochs are exclusive "
                 "(DLIO checkpoints by steps or by epochs)");
        return KB_IO_USAGE;
    }
    c->plan = p->ckpt;
    if (cmd.every_steps)
        c->plan.every_steps = cmd.every_steps, c->plan.every_epochs = 0;
    if (cmd.every_epochs)
        c->plan.every_epochs = cmd.every_epochs, c->plan.every_steps = 0;
    if (cmd.optimizer_bytes)
        c->plan.optimizer_bytes = cmd.optimizer_bytes;
    c->dir = verb ? o->dir : o->ckpt_dir;
    if (!c->dir && p->dlio.checkpoint_folder[0]) {  /* DLIO's, made so */
        c->dir = p->dlio.checkpoint_folder;
        int rc = kb_io_dlio_make_folder(c->dir, err, len);
        if (rc)
            return rc;
    }
    if (verb && !c->dir) {
        snprintf(err, len, "--dir is required (the DLIO config has no "
                 "checkpoint.checkpoint_folder with workflow.checkpoint "
                 "true)");
        return KB_IO_USAGE;
    }
    /* a schedule asked for on the command line must not vanish silently */
    if (!verb && !c->dir && (cmd.every_steps || cmd.every_epochs ||
                             cmd.optimizer_bytes || c->async || c->sharded)) {
        snprintf(err, len, "--every-steps, --every-epochs, --optimizer-bytes, "
                 "--async and --sharded need --checkpoint-dir (or a DLIO "
                 "config with workflow.checkpoint true)");
        return KB_IO_USAGE;
    }
    c->json = o->run.json;
    c->bytes = o->bytes ? (uint64_t)o->bytes : (uint64_t)p->checkpoint_bytes;
    c->fsync = o->fsync;
    c->direct = o->run.direct;
    c->seed = o->run.seed;
    c->rank = o->run.rank;
    /* the verb's loop: --steps, else DLIO's steps an epoch a rank (the
     * dataset over batch and ranks, at most total_training_steps) */
    c->steps = o->steps;
    if (!c->steps) {
        c->steps = kb_io_dlio_steps(p->files * p->samples_per_file, p->batch,
                                    c->rank.ranks > 0 ? c->rank.ranks : 1,
                                    p->max_steps);
        if (!c->steps && p->max_steps > 0)   /* no dataset to count */
            c->steps = p->max_steps;
    }
    c->epochs = o->run.epochs;
    c->compute_sleep = p->compute_seconds;
    if (verb && o->compute) {
        if (strncmp(o->compute, "sleep:", 6) ||
            kb_parse_double("io checkpoint", "--compute sleep:", o->compute + 6,
                            0, 1e9, &c->compute_sleep)) {
            snprintf(err, len, "--compute %s: checkpoint takes only "
                     "sleep:SECONDS", o->compute);
            return KB_IO_USAGE;
        }
    }
    if (!c->dir)
        return 0;
    if (!c->bytes) {
        snprintf(err, len, "checkpoint: give --bytes N, or a --profile or "
                 "--dlio-config with a model size");
        return KB_IO_USAGE;
    }
    if (!(c->engine = find_engine(o->engine, err, len)))
        return KB_IO_USAGE;
    return 0;
}

/* Dispatch on the sub-verb once options are parsed. */
static int dispatch(const char *verb, cmd_opts *o, char *err, size_t len)
{
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    bool ckpt = strcmp(verb, "checkpoint") == 0;
    int rc = load_profile(o, &p, ckpt, err, len);
    if (rc)
        return rc;
    if (strcmp(verb, "gen") == 0) {
        o->gen.dir = o->dir;
        return kb_io_gen(&p, &o->gen, err, len);
    }
    /* the seed may be the profile's: known once it is loaded */
    o->prov.seed = o->run.seed;
    if (strcmp(verb, "run") == 0) {
        rc = finish_run_opts(o, &p, err, len);
        o->prov.threads = (int)o->run.readers;
        if (!rc)
            rc = finish_ckpt_opts(o, &p, false, err, len);
        o->run.prov = o->ckpt.prov = &o->prov;
        if (!rc)
            o->run.ckpt = o->ckpt;
        return rc ? rc : kb_io_run(&p, &o->run, err, len);
    }
    rc = finish_ckpt_opts(o, &p, true, err, len);
    o->ckpt.prov = &o->prov;
    return rc ? rc : kb_io_checkpoint(&o->ckpt, err, len);
}

/* gen, run and checkpoint, once the parser has filled o. */
static int io_main(const char *verb, cmd_opts *o, int argc, char **argv)
{
    int rc = check_opts(verb, o, argc, argv);
    if (rc)
        return KB_EXIT_USAGE;
    int cmd_argc;
    char **cmd_argv;
    kb_verb_command_line(&cmd_argc, &cmd_argv);
    kb_provenance_collect(&o->prov, cmd_argc, cmd_argv, 1, 0);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    kb_io_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char err[KB_IO_ERRLEN] = "";
    rc = dispatch(verb, o, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc)
        fprintf(stderr, "kbench io %s: %s\n", verb, err);
    return exit_code(rc);
}

/* --seed: the generator's and the reader's, else the profile's. */
static int opt_seed(void *opts, const char *v, const char *verb, const kb_option *op)
{
    cmd_opts *o = opts;
    int64_t x;
    char what[32];
    snprintf(what, sizeof what, "--%s", op->name);
    if (kb_parse_int(verb, what, v, 0, INT64_MAX, &x))
        return -1;
    o->gen.seed = o->run.seed = (uint64_t)x;
    o->seed_given = true;
    return 0;
}

/* --chunk: O_DIRECT needs whole aligned blocks. */
static int opt_chunk(void *opts, const char *v, const char *verb, const kb_option *op)
{
    int64_t x;
    char what[32];
    snprintf(what, sizeof what, "--%s", op->name);
    if (kb_parse_int(verb, what, v, KB_IO_ALIGN, 1 << 30, &x))
        return -1;
    if (x % KB_IO_ALIGN) {
        fprintf(stderr, "kbench %s: --%s %s: expected a multiple of %d\n", verb,
                op->name, v, KB_IO_ALIGN);
        return -1;
    }
    ((cmd_opts *)opts)->run.chunk = (size_t)x;
    return 0;
}

#define O(F) offsetof(cmd_opts, F)
#define INT(NAME, MV, F, LO, HI, HELP)                                      \
    {.name = NAME, .type = KB_OPT_INT, .metavar = MV, .offset = O(F),       \
     .min = LO, .max = HI, .help = HELP}
#define STR(NAME, MV, F, HELP)                                              \
    {.name = NAME, .type = KB_OPT_STRING, .metavar = MV, .offset = O(F),    \
     .help = HELP}
#define FLAG(NAME, F, HELP)                                                 \
    {.name = NAME, .type = KB_OPT_FLAG, .offset = O(F), .help = HELP}
static const char *const no_yes[] = {"no", "yes", NULL};
static const char *const crc_none[] = {"crc", "none", NULL};   /* kb_io_verify */

/* One table for gen, run and checkpoint, as each takes a profile and
 * most of the loop's options. */
static const kb_option io_options[] = {
    STR("profile", "P", profile, "a profile of the profiles file"),
    STR("profiles", "FILE", profiles,
        "the profiles file (default $KBENCH_IO_PROFILES, else\n"
        "the data directory's io/profiles.conf)"),
    STR("dlio-config", "FILE.yaml", dlio_config,
        "a DLIO workload YAML in place of --profile;\n"
        "KEY=VALUE arguments override its keys"),
    FLAG("dlio-layout", dlio_layout, "run: read a dataset DLIO wrote (train/...)"),
    STR("dir", "D", dir,
        "the dataset (default: dataset.data_folder of --dlio-config)"),
    {.name = "scale", .type = KB_OPT_DOUBLE, .metavar = "F", .offset = O(gen.scale),
     .min = 0, .max = 1e9, .help = "gen: the profile's size times F (default 1)"},
    {.name = "seed", .type = KB_OPT_CUSTOM, .parse = opt_seed, .metavar = "S",
     .help = "data and shuffle seed (default: the profile's)"},
    {KB_OPTION_THREADS(cmd_opts, threads)},
    INT("epochs", "E", run.epochs, 1, 1000000, "run: epochs"),
    {KB_OPTION_JSON(cmd_opts, run.json, "one record an epoch or checkpoint")},
    {.name = "engine", .type = KB_OPT_STRING, .metavar = "E", .def = "pread",
     .offset = O(engine), .help = "pread, io_uring or mmap"},
    FLAG("direct", run.direct,
         "O_DIRECT; a refusal is recorded and the run goes on\nbuffered"),
    INT("readers", "N", run.readers, 1, 1024, "run: reader threads"),
    {.name = "decode", .type = KB_OPT_STRING, .metavar = "auto|none", .def = "auto",
     .offset = O(decode), .help = "run: decode the samples"},
    {.name = "verify", .type = KB_OPT_CHOICE, .choices = crc_none, .def = "crc",
     .offset = O(run.verify),
     .help = "run: check every record's CRC, or only framing,\nlengths and sample ids"},
    INT("prefetch", "B", run.prefetch, 1, 1024, "run: batches read ahead"),
    INT("batch", "N", run.batch, 1, 1 << 24, "run: samples a batch"),
    STR("compute", "C", compute,
        "sleep:SECONDS a step, or backend:NAME (the profile's\n"
        "model on that kbench backend)"),
    FLAG("cold", run.cold, "run: drop the page cache first"),
    FLAG("skip-corrupt", run.skip_corrupt, "run: count a corrupt sample, go on"),
    {.name = "chunk", .type = KB_OPT_CUSTOM, .parse = opt_chunk, .metavar = "BYTES",
     .def = "1048576", .help = "read size"},
    {.name = "depth", .type = KB_OPT_INT, .metavar = "N", .def = "8",
     .offset = O(depth), .min = 1, .max = 4096, .help = "io_uring queue depth"},
    {KB_OPTION_QUIET(cmd_opts, run.quiet)},
    INT("rank", "R", rank, 0, 1 << 20, "run: this rank (else Slurm, Open MPI or PMIx)"),
    INT("ranks", "N", ranks, 1, 1 << 20, "run: the number of ranks"),
    {.name = "drop-last", .type = KB_OPT_CHOICE, .choices = no_yes,
     .offset = O(drop_last), .help = "run: DLIO's drop_last"},
    INT("steps", "N", steps, 1, INT64_MAX, "a step limit an epoch"),
    INT("bytes", "N", bytes, 1, (double)((int64_t)1 << 40),
        "checkpoint: bytes, in place of --profile"),
    FLAG("fsync", fsync, "checkpoint: fsync each file"),
    STR("checkpoint-dir", "D", ckpt_dir, "run: the schedule's checkpoints"),
    FLAG("async", ckpt.async, "checkpoint overlapping the next steps"),
    FLAG("sharded", ckpt.sharded, "each rank writes its share"),
    INT("every-steps", "N", ckpt.plan.every_steps, 1, INT64_MAX,
        "a checkpoint every N steps"),
    INT("every-epochs", "N", ckpt.plan.every_epochs, 1, INT64_MAX,
        "a checkpoint every N epochs"),
    INT("optimizer-bytes", "N", optimizer_bytes, 0, (double)((int64_t)1 << 40),
        "checkpoint: optimizer state bytes"),
    {0},
};

static int io_gen(void *o, int argc, char **argv) { return io_main("gen", o, argc, argv); }
static int io_run(void *o, int argc, char **argv) { return io_main("run", o, argc, argv); }
static int io_ckpt(void *o, int argc, char **argv) { return io_main("checkpoint", o, argc, argv); }

#define IO_SUBVERB(NAME, FN, SYNOPSIS, SUMMARY)                             \
    {.name = NAME, .synopsis = SYNOPSIS, .summary = SUMMARY, .max_args = -1, \
     .opts_size = sizeof(cmd_opts), .init = io_init,                        \
     .tables = (const kb_option *const[]){io_options, NULL}, .run = FN,     \
     .exit_codes = IO_EXIT_CODES}
#define IO_EXIT_CODES                                                       \
    "  0    ok\n  1    verification failed (corrupt data, a sample\n"      \
    "       delivered twice or never)\n  2    usage or input error\n"      \
    "  3    runtime error\n  128+N  interrupted by signal N\n"

static const kb_verb io_gen_verb = IO_SUBVERB("gen", io_gen,
    "(--profile P | --dlio-config FILE [KEY=VALUE...]) --dir D [--scale F]\n"
    " [--seed S] [--threads N]",
    "write a synthetic dataset of the profile's format");
static const kb_verb io_run_verb = IO_SUBVERB("run", io_run,
    "(--profile P | --dlio-config FILE [KEY=VALUE...]) --dir D [--epochs E]\n"
    " [--json FILE] [--engine E] [--direct] [--readers N] [--decode D]\n"
    " [--verify crc|none] [--compute C] [--cold] [--rank R --ranks N] ...",
    "read it as the workload's input pipeline does, every sample checked");
static const kb_verb io_ckpt_verb = IO_SUBVERB("checkpoint", io_ckpt,
    "(--bytes N | --profile P) --dir D [--engine E] [--fsync] [--direct]\n"
    " [--every-steps N | --every-epochs N] [--async] [--sharded] ...",
    "write and read back checkpoints, alone or in DLIO's training loop");

typedef struct {
    const char *json;
} merge_opts;

static const kb_option merge_options[] = {
    {KB_OPTION_JSON(merge_opts, json, "one io_merge record an epoch")},
    {0},
};

static int io_merge(void *opts, int argc, char **argv)
{
    int cmd_argc;
    char **cmd_argv;
    kb_provenance prov;
    kb_verb_command_line(&cmd_argc, &cmd_argv);
    kb_provenance_collect(&prov, cmd_argc, cmd_argv, 1, 0);
    return kb_io_merge_files(argv, argc, ((merge_opts *)opts)->json, &prov);
}

static const kb_verb io_merge_verb = {
    .name = "merge", .synopsis = "[--json FILE] RANK.jsonl...",
    .summary = "the ranks' io_epoch records as one: every sample of every\n"
               "epoch delivered by exactly one rank, throughput summed",
    .min_args = 1, .max_args = -1, .opts_size = sizeof(merge_opts),
    .tables = (const kb_option *const[]){merge_options, NULL},
    .run = io_merge, .exit_codes = IO_EXIT_CODES,
};

const kb_verb kb_verb_io = {
    .name = "io", .synopsis = "gen|run|checkpoint|merge ...",
    .summary = "training-data input pipeline: gen, run, checkpoint, merge",
    .subverbs = (const kb_verb *const[]){&io_gen_verb, &io_run_verb,
                                          &io_ckpt_verb, &io_merge_verb, NULL},
};
