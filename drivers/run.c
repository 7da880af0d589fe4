/* run.c - the `kbench run` engine: every problem on every backend,
 * validated, timed and recorded case by case (see run.h). */
#include "drivers/run.h"

#include "drivers/commands.h"
#include "drivers/dump_npy.h"
#include "drivers/record.h"
#include "drivers/signals.h"
#include "drivers/timing.h"
#include "drivers/training/rollup.h"
#include "reference/reference.h"

#include <omp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WRITERS 5

/* Everything one run shares across its cases. */
typedef struct {
    const kb_run_opts *o;
    kb_writer *writers[MAX_WRITERS];
    int nwriters;
    kb_dump *dump;             /* NULL without --dump */
    kb_summary summary;
    bool output_failed;        /* a writer or the dump failed: stop, exit 3 */
    bool progress;             /* stderr is a terminal */
    bool settle_off;           /* waiting for other threads gave up (they
                                  never went idle, or cannot be observed) */
    int64_t seq, total;
    /* per o->backends[i], with --peaks: its describe()'s "device_uuid"
     * ("" for none), asked once, for the roofline's choice of GPU */
    char device_id[KB_RUN_MAX_BACKENDS][48];
} run_state;

/* ---- options ---- */

void kb_run_opts_init(kb_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 5;
    o->min_time = 0.2;
    o->max_reps = 10000;
    o->roof_level = "auto";
    o->warmup = 1;
    o->warmup_time = 0.01;
    o->settle = 1.0;
    o->seed = 42;
    o->device = (kb_backend_config){.device = 0, .tuning = NULL,
                                    .launches = 1, .flush_l2 = true};
}

void kb_run_opts_free(kb_run_opts *o)
{
    kb_problem_list_free(&o->problems);
    free(o->models);
    o->models = NULL;
    o->models_cap = 0;
    free(o->ceilings);
    o->ceilings = NULL;
}

int kb_run_add(kb_run_opts *o, const kb_problem_list *l, const char *model)
{
    size_t old = o->problems.n;
    if (l->n > SIZE_MAX / sizeof *o->models - old)
        return -1;
    if (old + l->n > o->models_cap) {
        size_t cap = old + l->n;
        void *m = realloc(o->models, cap * sizeof *o->models);
        if (!m)
            return -1;
        o->models = m;
        o->models_cap = cap;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (kb_problem_list_push(&o->problems, &l->items[i]) != 0) {
            o->problems.n = old;   /* all or nothing */
            return -1;
        }
        snprintf(o->models[old + i], KB_MODEL_NAME_MAX, "%s", model);
    }
    return 0;
}

/* ---- writers ---- */

/* Open the writers o asks for.  Returns 0, or -1 after printing which
 * file could not be opened (those already open are closed). */
static int open_writers(run_state *rs)
{
    const kb_run_opts *o = rs->o;
    char err[512] = "";
    kb_writer *w;
    if (!o->quiet) {
        if (!(w = kb_writer_table(stdout)))
            goto fail;
        rs->writers[rs->nwriters++] = w;
    }
    /* after the table, before the JSON summary (rollup.h) */
    if (o->training) {
        if (!(w = kb_writer_rollup(o, o->quiet ? NULL : stdout)))
            goto fail;
        rs->writers[rs->nwriters++] = w;
    }
    if (o->json_path) {
        if (!(w = kb_writer_jsonl(o->json_path, err, sizeof err)))
            goto fail;
        rs->writers[rs->nwriters++] = w;
        if (o->training)
            kb_writer_rollup_json(rs->writers[rs->nwriters - 2], w);
    }
    if (o->csv_path) {
        if (!(w = kb_writer_csv(o->csv_path, err, sizeof err)))
            goto fail;
        rs->writers[rs->nwriters++] = w;
    }
    if (o->result_lines) {
        if (!(w = kb_writer_result_lines(stdout)))
            goto fail;
        rs->writers[rs->nwriters++] = w;
    }
    return 0;
fail:
    fprintf(stderr, "kbench run: %s\n", err[0] ? err : "out of memory");
    for (int i = 0; i < rs->nwriters; i++)
        rs->writers[i]->close(rs->writers[i]);
    rs->nwriters = 0;
    return -1;
}

/* Clear the progress line so records printed to the same terminal start
 * on a clean line. */
static void progress_clear(const run_state *rs)
{
    if (rs->progress)
        fputs("\r\033[K", stderr);
}

static void progress_show(const run_state *rs, const char *desc,
                          const char *backend)
{
    if (rs->progress)
        fprintf(stderr, "\r\033[K[%lld/%lld] %s on %s", (long long)rs->seq,
                (long long)rs->total, desc, backend);
}

/* Hand r to every writer; a failing writer (it printed why) marks the
 * run's output as failed, which stops the run. */
static void write_record(run_state *rs, const kb_case_record *r)
{
    progress_clear(rs);
    for (int i = 0; i < rs->nwriters; i++)
        if (rs->writers[i]->write_case(rs->writers[i], r) != 0)
            rs->output_failed = true;
}

/* ---- one case ---- */

/* Tensors a validation run needs as they were before it: the backend's
 * own tensors for pure inputs, copies of those it also writes (GEMM dst
 * with beta != 0).  Returns 0, or -1 when a copy cannot be allocated. */
static int snapshot_inputs(const kb_problem *p, const kb_tensors *t,
                           kb_tensors *in)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    *in = *t;
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used || !info[a].is_input || !info[a].is_output)
            continue;
        /* Sizes were checked for overflow by the memory check. */
        size_t bytes = (size_t)info[a].nelems * kb_dtype_size(info[a].dt);
        void *copy;
        if (posix_memalign(&copy, 64, bytes ? bytes : 1) != 0) {
            in->ptr[a] = NULL;
            for (int b = 0; b < a; b++)
                if (in->ptr[b] != t->ptr[b])
                    free(in->ptr[b]);
            return -1;
        }
        memcpy(copy, t->ptr[a], bytes);
        in->ptr[a] = copy;
    }
    return 0;
}

/* Put the tensors that are both input and output back as the snapshot
 * holds them (the timed runs have accumulated into them since). */
static void snapshot_restore(const kb_problem *p, const kb_tensors *in,
                             kb_tensors *t)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (in->ptr[a] != t->ptr[a])
            memcpy(t->ptr[a], in->ptr[a],
                   (size_t)info[a].nelems * kb_dtype_size(info[a].dt));
}

static void snapshot_free(const kb_tensors *t, kb_tensors *in)
{
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (in->ptr[a] != t->ptr[a])
            free(in->ptr[a]);
}

/* Mark r as ERROR with "what: why". */
static void set_error(kb_case_record *r, const char *what, const char *why)
{
    r->status = KB_ERROR;
    snprintf(r->reason, sizeof r->reason, "%s: %s", what, why);
}

/* One case's plan and data: the plan that is validated is the plan that
 * is timed, over the same buffers. */
typedef struct {
    const kb_run_opts *o;
    const kb_problem *p;
    const kb_backend *b;
    void *plan;
    kb_tensors *t;             /* the host tensors given to prepare() */
    const kb_tensors *inputs;  /* t's inputs as they were before any run */
    double settle_max;         /* kb_rep_opts' */
} case_ctx;

/* read_output, then the reference check of what the last run left in
 * c->t.  Returns 1 when it passes, 0 when it fails (v says how), or -1
 * with r marked ERROR ("read_output failed<when>"). */
static int check_output(const case_ctx *c, const char *when,
                        kb_case_record *r, kb_validation *v)
{
    char why[256] = "";
    if (c->b->read_output && c->b->read_output(c->plan, why, sizeof why) != 0) {
        char what[96];
        snprintf(what, sizeof what, "read_output failed%s", when);
        set_error(r, what, why);
        return -1;
    }
    kb_validate_opts vo = {.sample_points = c->o->check_points,
                           .seed = c->o->seed};
    return kb_validate(c->p, c->inputs, c->t, &vo, v) ? 1 : 0;
}

/* Check #1: one run on the freshly prepared plan, compared with the
 * reference; then --dump.  Sets r PASSED, FAILED or ERROR.  Returns 0, or
 * -1 when the dump could not be written (printed; the run stops). */
static int check_first_run(run_state *rs, const case_ctx *c,
                           kb_case_record *r)
{
    char why[256] = "";
    double elapsed;
    if (c->b->run(c->plan, &elapsed, why, sizeof why) != 0) {
        set_error(r, "run failed", why);
        return 0;
    }
    int ok = check_output(c, "", r, &r->validation);
    if (ok < 0)
        return 0;
    r->validated = true;
    r->status = ok ? KB_PASSED : KB_FAILED;
    if (!ok)
        snprintf(r->reason, sizeof r->reason, "%s",
                 r->validation.first_mismatch);
    char err[512];
    if (rs->dump && kb_dump_case(rs->dump, r->seq, c->b->name, c->p, r->desc,
                                 c->inputs, c->t, err, sizeof err) != 0) {
        progress_clear(rs);
        fprintf(stderr, "kbench run: %s\n", err);
        return -1;
    }
    return 0;
}

static int rep_once(void *ctx, double *elapsed, char *err, size_t len)
{
    const case_ctx *c = ctx;
    return c->b->run(c->plan, elapsed, err, len);
}

/* Before the checked last repetition: the inputs back as they were, the
 * outputs poisoned, and the backend's own copies rewritten from them, so
 * only that repetition's work can pass the check after it.  All on this
 * thread: OpenMP's workers, woken here, would spin through the repetition
 * of a library with its own pool (settle.h). */
static int before_last_rep(void *ctx, char *err, size_t len)
{
    const case_ctx *c = ctx;
    snapshot_restore(c->p, c->inputs, c->t);
    kb_poison_outputs(c->p, c->t, false);
    char why[192] = "";
    if (c->b->write_input && c->b->write_input(c->plan, why, sizeof why) != 0) {
        snprintf(err, len, "write_input failed: %s", why);
        return -1;
    }
    return 0;
}

/* Why the last timed repetition failed the check the first run passed. */
static void last_rep_reason(const kb_validation *v, kb_case_record *r)
{
    if (v->nonfinite > 0)
        snprintf(r->reason, sizeof r->reason,
                 "the last timed repetition left %lld outputs NaN or Inf "
                 "(the poison written before it): its timed runs did not "
                 "do the work", (long long)v->nonfinite);
    else
        snprintf(r->reason, sizeof r->reason,
                 "the last timed repetition fails the check the first run "
                 "passed (its timed runs did not do the same work): %.120s",
                 v->first_mismatch);
}

/* Warm-up and timed repetitions on the validated plan.  When the first
 * run PASSED, the last repetition is prepared by before_last_rep and its
 * output checked too (check #2): a failure makes the case FAILED.
 * Returns 0 with the samples in s (r marked ERROR when a run failed), or
 * 1 when interrupted. */
static int time_and_check_last(case_ctx *c, kb_case_record *r,
                               kb_samples *s)
{
    const kb_run_opts *o = c->o;
    char why[256] = "";
    bool check = r->status == KB_PASSED;
    kb_rep_opts ro = {.settle_max = c->settle_max,
                      .warmup = o->warmup, .warmup_time = o->warmup_time,
                      .reps = o->reps,
                      .min_time = o->min_time, .max_reps = o->max_reps,
                      .stop = kb_signal_stop,
                      .before_last = check ? before_last_rep : NULL};
    int rc = kb_time_reps(rep_once, c, &ro, s, why, sizeof why);
    if (rc < 0)
        set_error(r, "run failed (timing)", why);
    if (rc != 0 || !check)
        return rc > 0;
    if (kb_signal_caught())
        return 1;   /* the case will not be written: spare the check */
    kb_validation v;
    int ok = check_output(c, " (last timed repetition)", r, &v);
    r->last_checked = ok >= 0;
    if (ok == 0) {
        r->validation = v;
        r->status = KB_FAILED;
        last_rep_reason(&v, r);
    }
    return 0;
}

/* The case on one plan, prepared once: fill the validation data, keep
 * the inputs, poison the outputs, prepare, check the first run, then
 * warm up, time, and check the last timed repetition.  Sets r PASSED,
 * FAILED or ERROR.  Returns 0, 1 when interrupted, or -1 when the dump
 * could not be written (the run stops). */
static int measure_case(run_state *rs, const kb_problem *p,
                        const kb_backend *b, kb_tensors *t,
                        kb_case_record *r, kb_samples *s)
{
    kb_tensors inputs;
    kb_fill_inputs(p, t, rs->o->fill, rs->o->seed);
    if (snapshot_inputs(p, t, &inputs) != 0) {
        set_error(r, "validation", "out of memory copying input tensors");
        return 0;
    }
    kb_poison_outputs(p, t, true);
    case_ctx c = {rs->o, p, b, NULL, t, &inputs,
                  rs->settle_off ? 0 : rs->o->settle};
    char why[256] = "";
    int rc = 0;
    if (b->prepare(p, t, &c.plan, why, sizeof why) != 0) {
        set_error(r, "prepare failed", why);
    } else {
        rc = check_first_run(rs, &c, r);
        if (rc == 0 && r->status != KB_ERROR && !kb_signal_caught())
            rc = time_and_check_last(&c, r, s);
        if (b->plan_info)
            b->plan_info(c.plan, &r->plan_info);
        b->release(c.plan);
    }
    snapshot_free(t, &inputs);
    return rc;
}

/* Fill the timing fields of r from s. */
static void set_timing(const kb_samples *s, kb_case_record *r)
{
    r->samples = s->v;
    r->nsamples = s->n;
    r->warmup = s->warmup_runs;
    r->backend_timed = s->n > 0 && s->self_timed;
    r->settle_s = s->settle == KB_SETTLE_QUIET ? s->settle_s : -1;
    if (s->n == 0)
        return;
    kb_stats_compute(s->v, s->n, &r->stats);
    if (r->stats.median > 0) {
        r->gflops = r->flops / r->stats.median * 1e-9;
        r->gbps = r->bytes / r->stats.median * 1e-9;
    }
}

/* A PASSED case measured more than KB_MISTRUST_PCT % of its roof:
 * benchdnn's MISTRUSTED, with the roof it broke. */
static void set_mistrusted(const kb_placement *pl, kb_case_record *r)
{
    char roof[96];
    if (pl->bound == KB_BOUND_MEMORY)
        snprintf(roof, sizeof roof, "%s bandwidth %.4g GB/s, AI %.3g",
                 pl->memory->level, pl->bw_gbps, pl->ai);
    else
        snprintf(roof, sizeof roof, "%s peak %.4g GFLOP/s of %s",
                 pl->compute->level, pl->peak_gflops, pl->compute->kernel);
    r->status = KB_MISTRUSTED;
    snprintf(r->reason, sizeof r->reason,
             "measured %.1f%% of its roof (%s): a counting or timing error, "
             "or data served from a faster level", pl->pct, roof);
}

/* The cached device uuid of backend b ("" when it has none). */
static const char *device_id(const run_state *rs, const kb_backend *b)
{
    for (int i = 0; i < rs->o->nbackends; i++)
        if (rs->o->backends[i] == b)
            return rs->device_id[i];
    return "";
}

/* Place a timed case on the roofline of the --peaks ceilings (a GPU case
 * under the ceilings of its own GPU, by uuid), or say in roof_note why it
 * is not placed. */
static void set_roofline(const kb_run_opts *o, const kb_backend *b,
                         const char *device_id, kb_case_record *r)
{
    if (!o->ceilings) {
        snprintf(r->roof_note, sizeof r->roof_note,
                 "no ceilings file (kbench run --peaks FILE)");
        return;
    }
    kb_roofline_case q = {
        .device = b->device,
        /* the multiplies run in the inputs' type: bf16:bf16:f32 is
         * under the bf16 roof */
        .dtype = kb_dtype_name(r->problem->dt.src),
        .level = o->roof_level,
        .flops = r->flops,
        .bytes = r->bytes,
        .gflops = r->gflops,
        .device_id = device_id,
    };
    r->roof_placed = kb_roofline_place(o->ceilings, &q, &r->roof, r->roof_note,
                                       sizeof r->roof_note) == 0;
    if (r->roof_placed && r->roof.above_roof)
        snprintf(r->roof_note, sizeof r->roof_note,
                 "measured %.1f%% of its roof: a counting or timing error, or "
                 "data that stayed in a cache above %s",
                 r->roof.pct, r->roof.memory ? r->roof.memory->level : "DRAM");
    if (r->roof_placed && r->status == KB_PASSED &&
        r->roof.pct > KB_MISTRUST_PCT)
        set_mistrusted(&r->roof, r);
}

static void count_status(kb_summary *sum, kb_status st)
{
    switch (st) {
    case KB_PASSED: sum->passed++; break;
    case KB_FAILED: sum->failed++; break;
    case KB_SKIPPED: sum->skipped++; break;
    case KB_ERROR: sum->errors++; break;
    case KB_MISTRUSTED: sum->mistrusted++; break;
    }
}

/* The wait before a case's warm-up did not end with the other threads
 * idle: say so once, and time the rest without waiting (a pool that never
 * sleeps would cost --settle seconds a case for nothing). */
static void note_settle(run_state *rs, const kb_case_record *r,
                        const kb_samples *s)
{
    if (rs->settle_off ||
        (s->settle != KB_SETTLE_BUSY && s->settle != KB_SETTLE_UNAVAILABLE))
        return;
    rs->settle_off = true;
    progress_clear(rs);
    if (s->settle == KB_SETTLE_BUSY)
        fprintf(stderr, "kbench run: case %lld (%s on %s): kbench's other "
                        "threads still ran after --settle %g s (a pool told "
                        "to spin, such as OMP_WAIT_POLICY=active?); this "
                        "case and the rest are timed without waiting\n",
                (long long)r->seq, r->desc, r->backend, rs->o->settle);
    else
        fprintf(stderr, "kbench run: kbench's threads (/proc/self/task) "
                        "cannot be listed here: cases are timed without "
                        "waiting for other threads to go idle (--settle)\n");
}

/* Run p on b and write its record.  An interrupted case is not written
 * (it has no complete measurement); nor is anything after an output
 * failure. */
static void run_case(run_state *rs, const kb_problem *p, const char *model,
                     const kb_backend *b)
{
    kb_case_record r;
    memset(&r, 0, sizeof r);
    r.seq = ++rs->seq;
    r.problem = p;
    kb_problem_format(p, r.desc, sizeof r.desc);
    r.model = model;
    r.backend = b->name;
    r.flops = kb_problem_flops(p);
    r.flops_dense = kb_problem_flops_dense(p);
    r.llc_bytes = rs->o->llc_bytes;
    r.bytes = kb_problem_bytes(p, r.llc_bytes);
    r.workspace_bytes = b->extra_bytes ? b->extra_bytes(p) : 0;
    progress_show(rs, r.desc, b->name);

    kb_samples s = {0};
    kb_tensors t;
    int rc = 0;
    if (!b->supports(p, r.reason, sizeof r.reason)) {
        r.status = KB_SKIPPED;
    } else if (kb_tensors_alloc(p, &t) != 0) {
        snprintf(r.reason, sizeof r.reason,
                 "cannot allocate %zu bytes of tensors",
                 kb_problem_tensor_bytes(p));
        r.status = KB_ERROR;
    } else {
        rc = measure_case(rs, p, b, &t, &r, &s);
        if (rc < 0)
            rs->output_failed = true;
        note_settle(rs, &r, &s);
        kb_tensors_free(&t);
    }
    if (!rs->output_failed && rc != 1 && !kb_signal_caught()) {
        set_timing(&s, &r);
        if (r.nsamples > 0)
            set_roofline(rs->o, b, device_id(rs, b), &r);
        count_status(&rs->summary, r.status);
        write_record(rs, &r);
    }
    kb_samples_free(&s);
}

/* ---- the run ---- */

void kb_run_apply_threads(const kb_run_opts *o)
{
    int n = o->threads > 0 ? o->threads : omp_get_max_threads();
    omp_set_num_threads(n);
    for (int i = 0; i < o->nbackends; i++)
        if (o->backends[i]->set_threads)
            o->backends[i]->set_threads(n);
}

int kb_run_configure_backends(const kb_run_opts *o)
{
    for (int i = 0; i < o->nbackends; i++) {
        const kb_backend *b = o->backends[i];
        char err[256] = "";
        if (b->configure && b->configure(&o->device, err, sizeof err) != 0) {
            fprintf(stderr, "kbench run: %s: %s\n", b->name, err);
            return -1;
        }
    }
    if (o->device.tuning) {
        /* a tuning no selected backend has must not pass unnoticed */
        bool taken = false;
        for (int i = 0; i < o->nbackends; i++)
            taken |= o->backends[i]->configure != NULL &&
                     strcmp(o->backends[i]->kind, "hand") == 0;
        if (!taken) {
            fprintf(stderr, "kbench run: --tuning %s: none of the selected "
                    "backends has named tunings (the hand-written GPU "
                    "backends do: kbench list backends)\n", o->device.tuning);
            return -1;
        }
    }
    return 0;
}

/* Print what a backend's describe() flags as a "warning" (for example
 * OpenBLAS running kernels narrower than the CPU), once, before any
 * figure is measured.  The run record keeps the same facts. */
static void warn_backends(const kb_run_opts *o)
{
    /* Backends sharing a device share its warning ("no CUDA device"):
     * said once, naming them all. */
    char said[KB_RUN_MAX_BACKENDS][224];
    int nsaid = 0;
    for (int i = 0; i < o->nbackends; i++) {
        kb_info info = {0};
        o->backends[i]->describe(&info);
        for (int k = 0; k < info.n; k++) {
            const char *w = info.kv[k].value;
            if (strcmp(info.kv[k].key, "warning") != 0)
                continue;
            bool dup = false;
            for (int s = 0; s < nsaid && !dup; s++)
                dup = strcmp(said[s], w) == 0;
            if (dup || nsaid == KB_RUN_MAX_BACKENDS)
                continue;
            snprintf(said[nsaid++], sizeof said[0], "%s", w);
            char names[512] = "";
            for (int j = i; j < o->nbackends; j++) {
                kb_info other = {0};
                o->backends[j]->describe(&other);
                for (int m = 0; m < other.n; m++)
                    if (strcmp(other.kv[m].key, "warning") == 0 &&
                        strcmp(other.kv[m].value, w) == 0) {
                        size_t n = strlen(names);
                        snprintf(names + n, sizeof names - n, "%s%s",
                                 n ? ", " : "", o->backends[j]->name);
                        break;
                    }
            }
            fprintf(stderr, "kbench: warning: %s: %s\n", names, w);
        }
    }
}

/* Fill rs->device_id from each backend's describe(), once a run (it
 * queries the device), when there are ceilings to place cases under. */
static void cache_device_ids(run_state *rs)
{
    for (int i = 0; rs->o->ceilings && i < rs->o->nbackends; i++) {
        kb_info info = {0};
        if (rs->o->backends[i]->describe)
            rs->o->backends[i]->describe(&info);
        for (int k = 0; k < info.n; k++)
            if (strcmp(info.kv[k].key, "device_uuid") == 0)
                /* "GPU-" and 36 characters; the field of kb_device */
                snprintf(rs->device_id[i], sizeof rs->device_id[i], "%.47s",
                         info.kv[k].value);
    }
}

/* begin() on every writer.  Returns 0, or -1 when one failed. */
static int begin_writers(run_state *rs)
{
    kb_provenance prov;
    kb_provenance_collect(&prov, rs->o->argc, rs->o->argv,
                          omp_get_max_threads(), rs->o->seed);
    prov.warmup = rs->o->warmup;
    prov.warmup_time = rs->o->warmup_time;
    prov.reps = rs->o->reps;
    prov.min_time = rs->o->min_time;
    prov.settle_max = rs->o->settle;
    prov.max_reps = rs->o->max_reps;
    prov.fill = kb_fill_mode_name(rs->o->fill);
    for (int i = 0; i < rs->nwriters; i++)
        if (rs->writers[i]->begin(rs->writers[i], &prov) != 0)
            return -1;
    return 0;
}

/* end() and close() on every writer, even after a failure, so every file
 * holds what was finished.  Returns 0, or -1 when one failed. */
static int finish_writers(run_state *rs)
{
    int rc = 0;
    for (int i = 0; i < rs->nwriters; i++) {
        if (rs->writers[i]->end(rs->writers[i], &rs->summary) != 0)
            rc = -1;
        rs->writers[i]->close(rs->writers[i]);
    }
    rs->nwriters = 0;
    if (rs->dump && kb_dump_close(rs->dump) != 0) {
        fprintf(stderr, "kbench run: --dump %s: closing manifest.jsonl "
                        "failed\n", rs->o->dump_dir);
        rc = -1;
    }
    rs->dump = NULL;
    return rc;
}

static void run_all_cases(run_state *rs)
{
    const kb_run_opts *o = rs->o;
    for (size_t i = 0; i < o->problems.n; i++)
        for (int j = 0; j < o->nbackends; j++) {
            if (rs->output_failed || kb_signal_caught())
                return;
            run_case(rs, &o->problems.items[i], o->models[i],
                     o->backends[j]);
        }
}

/* MISTRUSTED leaves the code alone, as in benchdnn: the output validated;
 * only its speed is in doubt, and the records say why. */
static int exit_code(const run_state *rs, int signo)
{
    if (signo)
        return 128 + signo;
    if (rs->output_failed || rs->summary.errors > 0)
        return KB_EXIT_RUNTIME;
    return rs->summary.failed > 0 ? KB_EXIT_VALIDATION : KB_EXIT_OK;
}

int kb_run_execute(const kb_run_opts *o)
{
    run_state rs = {.o = o, .progress = isatty(STDERR_FILENO)};
    rs.total = (int64_t)o->problems.n * o->nbackends;
    rs.summary.left_out = (int64_t)o->problems.n * o->nleft_out;
    rs.summary.left_out_backends = o->left_out;
    rs.summary.nleft_out_backends = o->nleft_out;
    char err[512];

    if (o->dump_dir && !(rs.dump = kb_dump_open(o->dump_dir, err,
                                                sizeof err))) {
        fprintf(stderr, "kbench run: %s\n", err);
        return KB_EXIT_USAGE;
    }
    if (open_writers(&rs) != 0) {
        if (rs.dump)
            kb_dump_close(rs.dump);
        return KB_EXIT_USAGE;
    }
    bool handlers = kb_signals_install() == 0;
    if (!handlers)
        fprintf(stderr, "kbench run: cannot install signal handlers (%s); "
                        "an interrupt will lose the summary\n",
                strerror(errno));
    warn_backends(o);
    cache_device_ids(&rs);
    if (begin_writers(&rs) != 0)
        rs.output_failed = true;
    else
        run_all_cases(&rs);
    progress_clear(&rs);

    int signo = kb_signal_caught();
    rs.summary.interrupted = signo != 0;
    if (finish_writers(&rs) != 0)
        rs.output_failed = true;
    if (handlers)
        kb_signals_restore();
    return exit_code(&rs, signo);
}
