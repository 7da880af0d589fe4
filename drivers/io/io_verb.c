/* io_verb.c - the `kbench io` verb: its sub-verbs gen, run, checkpoint
 * and merge, their option table, and the signals of a run (the request
 * they fill is settled and run by iostage/command.c). */
#include "iostage/command.h"
#include "iostage/merge/merge.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"
#include "drivers/commands.h"
#include "drivers/common/numfmt.h"
#include "drivers/common/options.h"
#include "drivers/provenance.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig) { kb_io_interrupted = sig; }

/* Defaults the table's do not say. */
static void io_init(void *opts)
{
    kb_io_request *o = opts;
    o->gen.scale = 1;
    o->gen.seed = o->run.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = ncpu > 0 ? ncpu : 1;
    /* run.prefetch 0: the profile's, else 2 (finish_run_opts) */
    o->rank = -1;
    o->drop_last = -1;
}

/* gen, run and checkpoint, once the parser has filled o. */
static int io_main(const char *verb, kb_io_request *o, int argc, char **argv)
{
    int rc = kb_io_request_check(verb, o, argc, argv);
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
    rc = kb_io_request_run(verb, o, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc)
        fprintf(stderr, "kbench io %s: %s\n", verb, err);
    return kb_io_exit_code(rc);
}

/* --seed: the generator's and the reader's, else the profile's. */
static int opt_seed(void *opts, const char *v, const char *verb, const kb_option *op)
{
    kb_io_request *o = opts;
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
    ((kb_io_request *)opts)->run.chunk = (size_t)x;
    return 0;
}

#define O(F) offsetof(kb_io_request, F)
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
    {KB_OPTION_THREADS(kb_io_request, threads)},
    INT("epochs", "E", run.epochs, 1, 1000000, "run: epochs"),
    {KB_OPTION_OUTPUT(json, kb_io_request, run.json, "one record an epoch or checkpoint")},
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
    {KB_OPTION_QUIET(kb_io_request, run.quiet)},
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
     .opts_size = sizeof(kb_io_request), .init = io_init,                        \
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
    {KB_OPTION_OUTPUT(json, merge_opts, json, "one io_merge record an epoch")},
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
