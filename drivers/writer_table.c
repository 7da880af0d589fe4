/* writer_table.c - the human-readable table on stdout: a header naming
 * the machine and build, one row per case as it finishes (with the
 * reason on the next line when a case did not pass), a summary line. */
#include "drivers/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DESC_WIDTH 34

/* Flush so a long run shows each case as it finishes.  Returns 0, or -1
 * when the stream reports an error. */
static int finish(kb_writer *w)
{
    if (ferror(w->out) || fflush(w->out) != 0) {
        fputs("kbench: cannot write the results table\n", stderr);
        return -1;
    }
    return 0;
}

static int table_begin(kb_writer *w, const kb_provenance *p)
{
    fprintf(w->out, "kbench %s  commit %s  %s\n", p->kbench_version,
            p->git_commit, p->date);
    fprintf(w->out, "host %s  cpu %s  cores %d  threads %d  affinity %s\n",
            p->host, p->cpu_model, p->cores_online, p->threads, p->affinity);
    fprintf(w->out, "%4s %-10s %-22s %-7s %-6s %-8s %-*s %10s %9s %9s %8s %6s %9s %15s  %s\n",
            "seq", "model", "layer", "kernel", "dir", "backend", DESC_WIDTH, "descriptor",
            "median_ms", "GFLOP/s", "GB/s", "%roof", "CV%", "max_rel",
            "mism/points", "status");
    return finish(w);
}

/* s cut to fit width, with "..." marking the cut. */
static const char *shorten(char *buf, size_t width, const char *s)
{
    if (strlen(s) <= width)
        return s;
    snprintf(buf, width + 1, "%.*s...", (int)width - 3, s);
    return buf;
}

/* A number in a fixed-width cell, "-" when absent or not finite. */
static const char *cell(char *buf, size_t len, bool present, const char *fmt,
                        double v)
{
    if (!present || !isfinite(v))
        return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

static int table_case(kb_writer *w, const kb_case_record *r)
{
    const kb_problem *p = r->problem;
    const kb_validation *v = &r->validation;
    bool timed = kb_status_ran(r->status) && r->nsamples > 0;
    char desc[DESC_WIDTH + 1], layer[23], med[32], gf[32], gb[32], cv[32],
        rel[32], mism[48], roof[32];
    if (r->validated)
        snprintf(mism, sizeof mism, "%lld/%lld%s", (long long)v->mismatches,
                 (long long)v->points,
                 v->mode == KB_CHECK_SAMPLED     ? "s"
                 : v->mode == KB_CHECK_PROJECTED ? "p"
                                                 : "");
    else
        snprintf(mism, sizeof mism, "-");
    /* % of the attainable roof and what bounds it: M(emory), C(ompute). */
    if (timed && r->roof_placed)
        snprintf(roof, sizeof roof, "%.0f%% %c%s", r->roof.pct,
                 r->roof.bound == KB_BOUND_MEMORY ? 'M' : 'C',
                 r->roof.above_roof ? "!" : "");
    else
        snprintf(roof, sizeof roof, "-");
    fprintf(w->out, "%4lld %-10s %-22s %-7s %-6s %-8s %-*s %10s %9s %9s %8s %6s %9s %15s  %s\n",
            (long long)r->seq, r->model && *r->model ? r->model : "-",
            shorten(layer, sizeof layer - 1, p->name[0] ? p->name : "-"),
            kb_problem_kernel_name(p), kb_dir_name(p->dir), r->backend, DESC_WIDTH,
            shorten(desc, DESC_WIDTH, r->desc),
            cell(med, sizeof med, timed, "%.4f", r->stats.median * 1e3),
            cell(gf, sizeof gf, timed, "%.2f", r->gflops),
            cell(gb, sizeof gb, timed, "%.2f", r->gbps), roof,
            cell(cv, sizeof cv, timed, "%.1f", r->stats.cv * 100),
            cell(rel, sizeof rel, r->validated, "%.2e", v->max_rel_err),
            mism, kb_status_name(r->status));
    if (r->status != KB_PASSED && r->reason[0])
        fprintf(w->out, "     %s: %s\n", kb_status_name(r->status), r->reason);
    /* A MISTRUSTED case's reason already says how far above. */
    if (timed && r->roof_placed && r->roof.above_roof &&
        r->status != KB_MISTRUSTED)
        fprintf(w->out, "     ABOVE ROOF: %s\n", r->roof_note);
    return finish(w);
}

/* ", N left out (no device: a, b)" when a default run left backends
 * out, else "": their cases are not SKIPPED, they were never run. */
static void left_out_note(const kb_summary *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->nleft_out_backends == 0)
        return;
    int n = snprintf(buf, len, ", %lld left out (no device:",
                     (long long)s->left_out);
    for (int i = 0; i < s->nleft_out_backends && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s %s", i ? "," : "",
                      s->left_out_backends[i]->name);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

static int table_end(kb_writer *w, const kb_summary *s)
{
    char left_out[512];
    left_out_note(s, left_out, sizeof left_out);
    fprintf(w->out, "%lld passed, %lld failed, %lld skipped, %lld errors, "
            "%lld mistrusted%s%s"
            "  (mism/points: \"p\" = projected, \"s\" = sampled validation; "
            "%%roof: of the "
            "attainable, M/C = memory/compute bound, ! = above the roof)\n",
            (long long)s->passed, (long long)s->failed, (long long)s->skipped,
            (long long)s->errors, (long long)s->mistrusted, left_out,
            s->interrupted ? ", INTERRUPTED" : "");
    return finish(w);
}

/* The stream belongs to the caller (stdout): only the writer is freed. */
static void table_close(kb_writer *w)
{
    free(w);
}

/* Returns the writer, or NULL when out of memory. */
kb_writer *kb_writer_table(FILE *out)
{
    kb_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->out = out;
    w->begin = table_begin;
    w->write_case = table_case;
    w->end = table_end;
    w->close = table_close;
    return w;
}
