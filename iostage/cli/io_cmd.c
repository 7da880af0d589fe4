/* io_cmd.c - the `kbench io` verb: sub-verbs gen, run and checkpoint, their
 * options, and the mapping of results to exit codes. */
#include "iostage/cli/io.h"
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
#include "drivers/provenance.h"
#include "iostage/formats/format.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig) { kb_io_interrupted = sig; }

static void usage(FILE *out)
{
    fprintf(out,
        "usage: kbench io gen --profile P --dir D [--scale F] [--seed S]\n"
        "                     [--threads N]\n"
        "       kbench io run --profile P --dir D [--epochs E] [--json FILE]\n"
        "           [--engine pread|io_uring|mmap] [--direct] [--readers N]\n"
        "           [--decode auto|none] [--prefetch B] [--batch N]\n"
        "           [--compute sleep:SECONDS|backend:NAME] [--cold]\n"
        "           [--skip-corrupt] [--chunk BYTES] [--depth N] [--seed S]\n"
        "           [--quiet] [--verify crc|none]\n"
        "    --compute backend:NAME runs the profile's model (its kbench\n"
        "    catalog) on backend NAME, one forward pass a step at --batch;\n"
        "    --direct reads with O_DIRECT; a refusal (at open, or at the\n"
        "    read) is recorded and the run reads buffered from then on;\n"
        "    --verify none checks framing but no checksum (CRC-32, CRC32C):\n"
        "    a figure of the storage path alone (default crc)\n"
        "       kbench io checkpoint (--bytes N | --profile P) --dir D\n"
        "           [--engine E] [--fsync] [--direct] [--seed S] [--json FILE]\n"
        "           [--every-steps N | --every-epochs N] [--steps N] [--epochs E]\n"
        "           [--optimizer-bytes N] [--compute sleep:S] [--async]\n"
        "           [--sharded]\n"
        "    --direct: O_DIRECT both ways where the filesystem and engine\n"
        "    allow it; a write that cannot be direct is fsync'd in its timed\n"
        "    window, and the output names the mode and any refusal;\n"
        "    with a schedule, emulates DLIO's training loop: steps of compute,\n"
        "    a checkpoint every N steps or epochs (--async: overlapping the\n"
        "    next steps; --sharded: each rank writes its share)\n"
        "       kbench io merge [--json FILE] RANK.jsonl...\n"
        "    proves exactly-once delivery across the ranks' records and sums\n"
        "    their throughput\n"
        "  DLIO: --dlio-config FILE.yaml [KEY=VALUE...] in place of --profile\n"
        "  (gen, run, checkpoint; --dir defaults to dataset.data_folder,\n"
        "  checkpoint's --dir and run's --checkpoint-dir to\n"
        "  checkpoint.checkpoint_folder with workflow.checkpoint true);\n"
        "  run --dlio-layout --dir D reads a dataset DLIO wrote (train/...)\n"
        "  run: --rank R --ranks N (else Slurm, Open MPI or PMIx variables),\n"
        "  --drop-last yes|no, --steps N (a step limit an epoch),\n"
        "  --checkpoint-dir D (the schedule's checkpoints, with --async,\n"
        "  --sharded, --every-steps, --every-epochs)\n"
        "  every sub-verb: --profiles FILE (default $KBENCH_IO_PROFILES or\n"
        "  %s)\n"
        "exit codes: 0 ok, 1 verification failed (corrupt data, a sample\n"
        "  delivered twice or never), 2 usage, 3 runtime, 128+N signal N\n",
        kb_io_profiles_path() ? kb_io_profiles_path()
                              : "<no kbench data directory>/io/profiles.conf");
}

/* Integer option value within [lo, hi].  0, or -1 after a message. */
static int parse_i64(const char *opt, const char *v, int64_t lo, int64_t hi,
                     int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "kbench io: --%s '%s': expected an integer in "
                "[%" PRId64 ", %" PRId64 "]\n", opt, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_double(const char *opt, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= 0) || x > 1e9) {
        fprintf(stderr, "kbench io: --%s '%s': expected a number >= 0\n",
                opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

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
} cmd_opts;

enum { O_PROFILE = 256, O_PROFILES, O_DIR, O_SCALE, O_SEED, O_THREADS,
       O_EPOCHS, O_JSON, O_ENGINE, O_DIRECT, O_READERS, O_DECODE, O_PREFETCH,
       O_BATCH, O_COMPUTE, O_COLD, O_SKIP, O_CHUNK, O_DEPTH, O_QUIET,
       O_BYTES, O_FSYNC, O_DLIO_CONFIG, O_DLIO_LAYOUT, O_RANK, O_RANKS,
       O_DROP_LAST, O_STEPS, O_CKPT_DIR, O_ASYNC, O_SHARDED, O_EVERY_STEPS,
       O_EVERY_EPOCHS, O_OPT_BYTES, O_VERIFY, O_HELP };

static const struct option long_opts[] = {
    {"profile", 1, 0, O_PROFILE}, {"profiles", 1, 0, O_PROFILES},
    {"dir", 1, 0, O_DIR}, {"scale", 1, 0, O_SCALE}, {"seed", 1, 0, O_SEED},
    {"threads", 1, 0, O_THREADS}, {"epochs", 1, 0, O_EPOCHS},
    {"json", 1, 0, O_JSON}, {"engine", 1, 0, O_ENGINE},
    {"direct", 0, 0, O_DIRECT}, {"readers", 1, 0, O_READERS},
    {"decode", 1, 0, O_DECODE}, {"prefetch", 1, 0, O_PREFETCH},
    {"batch", 1, 0, O_BATCH}, {"compute", 1, 0, O_COMPUTE},
    {"cold", 0, 0, O_COLD}, {"skip-corrupt", 0, 0, O_SKIP},
    {"chunk", 1, 0, O_CHUNK}, {"depth", 1, 0, O_DEPTH},
    {"quiet", 0, 0, O_QUIET}, {"bytes", 1, 0, O_BYTES},
    {"fsync", 0, 0, O_FSYNC}, {"dlio-config", 1, 0, O_DLIO_CONFIG},
    {"dlio-layout", 0, 0, O_DLIO_LAYOUT}, {"rank", 1, 0, O_RANK},
    {"ranks", 1, 0, O_RANKS}, {"drop-last", 1, 0, O_DROP_LAST},
    {"steps", 1, 0, O_STEPS}, {"checkpoint-dir", 1, 0, O_CKPT_DIR},
    {"async", 0, 0, O_ASYNC}, {"sharded", 0, 0, O_SHARDED},
    {"every-steps", 1, 0, O_EVERY_STEPS},
    {"every-epochs", 1, 0, O_EVERY_EPOCHS},
    {"optimizer-bytes", 1, 0, O_OPT_BYTES}, {"verify", 1, 0, O_VERIFY},
    {"help", 0, 0, O_HELP},
    {0, 0, 0, 0}};

/* One option into o.  0, -1 after a message, 1 for --help. */
static int set_opt(cmd_opts *o, int c, const char *v)
{
    int64_t x;
    switch (c) {
    case O_PROFILE: o->profile = v; return 0;
    case O_PROFILES: o->profiles = v; return 0;
    case O_DIR: o->dir = v; return 0;
    case O_JSON: o->run.json = v; return 0;
    case O_ENGINE: o->engine = v; return 0;
    case O_DECODE: o->decode = v; return 0;
    case O_VERIFY:
        if (strcmp(v, "crc") && strcmp(v, "none")) {
            fprintf(stderr, "kbench io: --verify '%s': expected crc or "
                    "none\n", v);
            return -1;
        }
        o->run.verify = strcmp(v, "none") ? KB_IO_VERIFY_CRC
                                          : KB_IO_VERIFY_NONE;
        return 0;
    case O_COMPUTE: o->compute = v; return 0;
    case O_DIRECT: o->run.direct = true; return 0;
    case O_COLD: o->run.cold = true; return 0;
    case O_SKIP: o->run.skip_corrupt = true; return 0;
    case O_QUIET: o->run.quiet = true; return 0;
    case O_FSYNC: o->fsync = true; return 0;
    case O_DLIO_CONFIG: o->dlio_config = v; return 0;
    case O_DLIO_LAYOUT: o->dlio_layout = true; return 0;
    case O_CKPT_DIR: o->ckpt_dir = v; return 0;
    case O_ASYNC: o->ckpt.async = true; return 0;
    case O_SHARDED: o->ckpt.sharded = true; return 0;
    case O_HELP: return 1;
    case O_RANK: return parse_i64("rank", v, 0, 1 << 20, &o->rank);
    case O_RANKS: return parse_i64("ranks", v, 1, 1 << 20, &o->ranks);
    case O_STEPS: return parse_i64("steps", v, 1, INT64_MAX, &o->steps);
    case O_EVERY_STEPS:
        return parse_i64("every-steps", v, 1, INT64_MAX,
                         &o->ckpt.plan.every_steps);
    case O_EVERY_EPOCHS:
        return parse_i64("every-epochs", v, 1, INT64_MAX,
                         &o->ckpt.plan.every_epochs);
    case O_OPT_BYTES:
        if (parse_i64("optimizer-bytes", v, 0, (int64_t)1 << 40, &x))
            return -1;
        o->ckpt.plan.optimizer_bytes = (uint64_t)x;
        return 0;
    case O_DROP_LAST:
        if (strcmp(v, "yes") && strcmp(v, "no")) {
            fprintf(stderr, "kbench io: --drop-last '%s': expected yes or "
                    "no\n", v);
            return -1;
        }
        o->drop_last = strcmp(v, "yes") == 0;
        return 0;
    case O_SCALE: return parse_double("scale", v, &o->gen.scale);
    case O_SEED:
        if (parse_i64("seed", v, 0, INT64_MAX, &x))
            return -1;
        o->gen.seed = o->run.seed = (uint64_t)x;
        o->seed_given = true;
        return 0;
    case O_THREADS:
        if (parse_i64("threads", v, 1, 1024, &x))
            return -1;
        o->gen.threads = (int)x;
        return 0;
    case O_EPOCHS: return parse_i64("epochs", v, 1, 1000000, &o->run.epochs);
    case O_READERS: return parse_i64("readers", v, 1, 1024, &o->run.readers);
    case O_PREFETCH: return parse_i64("prefetch", v, 1, 1024, &o->run.prefetch);
    case O_BATCH: return parse_i64("batch", v, 1, 1 << 24, &o->run.batch);
    case O_DEPTH:
        if (parse_i64("depth", v, 1, 4096, &x))
            return -1;
        o->run.depth = (unsigned)x;
        return 0;
    case O_CHUNK:
        /* O_DIRECT needs whole aligned blocks */
        if (parse_i64("chunk", v, KB_IO_ALIGN, 1 << 30, &x))
            return -1;
        if (x % KB_IO_ALIGN) {
            fprintf(stderr, "kbench io: --chunk %s: expected a multiple of "
                    "%d\n", v, KB_IO_ALIGN);
            return -1;
        }
        o->run.chunk = (size_t)x;
        return 0;
    case O_BYTES: return parse_i64("bytes", v, 1, (int64_t)1 << 40, &o->bytes);
    default: return -1;
    }
}

/* Parse argv (argv[0] the sub-verb).  0, KB_IO_USAGE, or 1 for --help. */
static int parse_opts(int argc, char **argv, cmd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gen.scale = 1;
    o->gen.seed = o->run.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->gen.threads = ncpu > 0 ? (int)ncpu : 1;
    /* run.prefetch 0: the profile's, else 2 (finish_run_opts) */
    o->run.chunk = 1 << 20;
    o->run.depth = 8;
    o->engine = "pread";
    o->decode = "auto";
    o->rank = -1;
    o->drop_last = -1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        if (c == '?') {
            fprintf(stderr, "kbench io %s: unknown option or missing value "
                    "'%s'\n", argv[0], argv[optind - 1]);
            return KB_IO_USAGE;
        }
        int rc = set_opt(o, c, optarg);
        if (rc)
            return rc > 0 ? 1 : KB_IO_USAGE;
    }
    /* what is left are a DLIO config's key=value overrides, as DLIO takes
     * them after its workload= */
    o->overrides = argv + optind;
    o->noverrides = argc - optind;
    for (int i = 0; i < o->noverrides; i++)
        if (!(o->dlio_config || o->dlio_layout) ||
            !strchr(o->overrides[i], '=')) {
            fprintf(stderr, "kbench io %s: unexpected argument '%s'%s\n",
                    argv[0], o->overrides[i],
                    strchr(o->overrides[i], '=')
                        ? " (key=value overrides need --dlio-config or "
                          "--dlio-layout)"
                        : "");
            return KB_IO_USAGE;
        }
    if (o->profile && (o->dlio_config || o->dlio_layout)) {
        fprintf(stderr, "kbench io %s: --profile and --dlio-config/"
                "--dlio-layout are exclusive\n", argv[0]);
        return KB_IO_USAGE;
    }
    if (!o->dir && !o->dlio_config) {
        fprintf(stderr, "kbench io %s: --dir is required\n", argv[0]);
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
        return parse_double("compute", o->compute + 6, &r->compute_sleep)
                   ? KB_IO_USAGE : 0;
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
            parse_double("compute", o->compute + 6, &c->compute_sleep)) {
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

int kb_cmd_io(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? KB_EXIT_USAGE : KB_EXIT_OK;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "merge") == 0) {
        kb_provenance prov;
        kb_provenance_collect(&prov, argc, argv, 1, 0);
        return kb_io_merge_cmd(argc - 1, argv + 1, &prov);
    }
    if (strcmp(verb, "gen") && strcmp(verb, "run") &&
        strcmp(verb, "checkpoint")) {
        fprintf(stderr, "kbench io: unknown sub-verb '%s' (expected gen, run, "
                "checkpoint or merge)\n", verb);
        return KB_EXIT_USAGE;
    }
    cmd_opts o;
    int rc = parse_opts(argc - 1, argv + 1, &o);
    if (rc == 1) {
        usage(stdout);
        return KB_EXIT_OK;
    }
    if (rc)
        return KB_EXIT_USAGE;
    kb_provenance_collect(&o.prov, argc, argv, 1, 0);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    kb_io_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char err[KB_IO_ERRLEN] = "";
    rc = dispatch(verb, &o, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc)
        fprintf(stderr, "kbench io %s: %s\n", verb, err);
    return exit_code(rc);
}
