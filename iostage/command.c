/* command.c - what `kbench io gen|run|checkpoint` asked for, checked
 * across options, settled from the profile or the DLIO config, and run. */
#include "iostage/command.h"
#include "iostage/checkpoint/checkpoint.h"
#include "iostage/decode/decoder.h"
#include "iostage/dlio/config.h"
#include "iostage/pipeline.h"
#include "iostage/rank.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"
#include "drivers/common/numfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checks across options, and the positional arguments, which are a
 * DLIO config's key=value overrides.  0 or KB_IO_USAGE (printed). */
int kb_io_request_check(const char *verb, kb_io_request *o, int argc,
                        char **argv)
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
static int load_kbench_profile(const kb_io_request *o, kb_io_profile *p,
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
static int load_profile(kb_io_request *o, kb_io_profile *p, bool optional,
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
static int finish_run_opts(kb_io_request *o, const kb_io_profile *p, char *err,
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
static int finish_ckpt_opts(kb_io_request *o, const kb_io_profile *p, bool verb,
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
int kb_io_request_run(const char *verb, kb_io_request *o, char *err, size_t len)
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

