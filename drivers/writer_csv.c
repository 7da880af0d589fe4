/* writer_csv.c - results as CSV: a header row, then one row of scalar
 * fields per case (results/SCHEMA.md lists the columns).  Fields are
 * quoted as RFC 4180 says; rows end in "\n"; a number that is absent or
 * not finite is an empty field. */
#include "drivers/record.h"
#include "drivers/writer_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {
    "seq", "model", "layer", "count", "kernel", "backend", "dtype", "layout",
    "dir", "desc", "flops", "bytes", "ai", "nsamples", "warmup", "timer",
    "min_s", "median_s", "mean_s", "max_s", "stddev_s", "cv", "gflops",
    "gbps", "validation", "checked", "mismatches", "nonfinite",
    "max_abs_err", "max_rel_err", "tolerance", "attainable_gflops",
    "pct_of_attainable", "bound", "above_roof", "status", "reason",
    /* added later, so positional readers of the older columns still work */
    "flops_dense", "llc_bytes", "points",
};
#define NCOLS (sizeof columns / sizeof columns[0])

/* One field, quoted when it holds a comma, quote, CR or LF (quotes
 * doubled), preceded by a comma unless it is the first. */
static void put_field(FILE *out, size_t col, const char *s)
{
    if (col)
        fputc(',', out);
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Text form of a number field: empty when absent or not finite. */
static const char *num(char *buf, size_t len, bool present, double v)
{
    if (!present || !isfinite(v))
        return "";
    snprintf(buf, len, "%.9g", v);
    return buf;
}


static int csv_begin(kb_writer *w, const kb_provenance *p)
{
    (void)p;   /* provenance lives in the JSON Lines run record */
    for (size_t c = 0; c < NCOLS; c++)
        put_field(w->out, c, columns[c]);
    fputc('\n', w->out);
    return kb_writer_file_flush(w);
}

static int csv_case(kb_writer *w, const kb_case_record *r)
{
    const kb_problem *p = r->problem;
    bool timed = kb_status_ran(r->status) && r->nsamples > 0;
    bool val = r->validated;
    bool placed = timed && r->roof_placed;
    const kb_validation *v = &r->validation;
    char b[NCOLS][40];
    char dts[32];
    kb_dts_format(&p->dt, dts, sizeof dts);
    const char *f[NCOLS] = {
        num(b[0], 40, true, (double)r->seq),
        r->model ? r->model : "",
        p->name,
        num(b[3], 40, true, (double)p->count),
        kb_problem_kernel_name(p),
        r->backend,
        dts,
        kb_layout_name(p),
        kb_dir_name(p->dir),
        r->desc,
        num(b[10], 40, true, r->flops),
        num(b[11], 40, true, r->bytes),
        num(b[12], 40, r->bytes > 0, r->flops / r->bytes),
        num(b[13], 40, true, (double)(timed ? r->nsamples : 0)),
        num(b[14], 40, timed, (double)r->warmup),
        timed ? (r->backend_timed ? "backend" : "driver") : "",
        num(b[16], 40, timed, r->stats.min),
        num(b[17], 40, timed, r->stats.median),
        num(b[18], 40, timed, r->stats.mean),
        num(b[19], 40, timed, r->stats.max),
        num(b[20], 40, timed, r->stats.stddev),
        num(b[21], 40, timed, r->stats.cv),
        num(b[22], 40, timed, r->gflops),
        num(b[23], 40, timed, r->gbps),
        val ? kb_check_mode_name(v->mode) : "",
        num(b[25], 40, val, (double)v->checked),
        num(b[26], 40, val, (double)v->mismatches),
        num(b[27], 40, val, (double)v->nonfinite),
        num(b[28], 40, val, v->max_abs_err),
        num(b[29], 40, val, v->max_rel_err),
        num(b[30], 40, val, v->tolerance),
        num(b[31], 40, placed, r->roof.attainable),
        num(b[32], 40, placed, r->roof.pct),
        placed ? kb_bound_name(r->roof.bound) : "",
        placed ? (r->roof.above_roof ? "true" : "false") : "",
        kb_status_name(r->status),
        r->reason,
        num(b[37], 40, true, r->flops_dense),
        num(b[38], 40, r->llc_bytes > 0, r->llc_bytes),
        num(b[39], 40, val, (double)v->points),
    };
    for (size_t c = 0; c < NCOLS; c++)
        put_field(w->out, c, f[c]);
    fputc('\n', w->out);
    return kb_writer_file_flush(w);
}

static int csv_end(kb_writer *w, const kb_summary *s)
{
    (void)s;   /* a CSV file holds cases only */
    return kb_writer_file_flush(w);
}

/* Returns the writer, or NULL with err naming the path and the reason. */
kb_writer *kb_writer_csv(const char *path, char *err, size_t errlen)
{
    kb_writer *w = kb_writer_file_open(path, "CSV", err, errlen);
    if (!w)
        return NULL;
    w->begin = csv_begin;
    w->write_case = csv_case;
    w->end = csv_end;
    w->close = kb_writer_file_close;
    return w;
}
