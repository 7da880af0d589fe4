/* writer_result_lines.c - one `RESULT key=value ...` line per case and a
 * final `SUITE_STATUS PASS|FAIL`, for harnesses that match lines with a
 * regular expression (ReFrame, CI logs).  Values never contain spaces. */
#include "drivers/record.h"

#include "backends/backend.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char host[128];
} result_state;

/* s with every space or control character replaced by '_' (and "-" for
 * an empty string), so `key=value` splits on spaces unambiguously. */
static const char *token(char *buf, size_t len, const char *s)
{
    if (!s || !*s)
        return "-";
    snprintf(buf, len, "%s", s);
    for (char *c = buf; *c; c++)
        if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
            *c = '_';
    return buf;
}

static int finish(kb_writer *w)
{
    if (ferror(w->out) || fflush(w->out) != 0) {
        fputs("kbench: cannot write RESULT lines\n", stderr);
        return -1;
    }
    return 0;
}

static int result_begin(kb_writer *w, const kb_provenance *p)
{
    result_state *st = w->state;
    snprintf(st->host, sizeof st->host, "%s", p->host);
    return 0;
}

static const char *verdict(kb_status s)
{
    switch (s) {
    case KB_PASSED: return "PASS";
    case KB_FAILED: return "FAIL";
    case KB_SKIPPED: return "SKIP";
    case KB_ERROR: return "ERROR";
    case KB_MISTRUSTED: return "PASS";   /* validated; its speed is doubted */
    }
    return "ERROR";
}

static int result_case(kb_writer *w, const kb_case_record *r)
{
    result_state *st = w->state;
    const kb_backend *b = kb_backend_find(r->backend);
    bool timed = kb_status_ran(r->status) &&
                 r->nsamples > 0 && isfinite(r->gflops) && isfinite(r->stats.median);
    char model[64], layer[KB_NAME_MAX], backend[64], host[128], value[32],
        median[32], roof[32];
    if (timed) {
        snprintf(value, sizeof value, "%.6g", r->gflops);
        snprintf(median, sizeof median, "%.6g", r->stats.median);
    } else {
        snprintf(value, sizeof value, "NA");
        snprintf(median, sizeof median, "NA");
    }
    /* NA without a ceilings file: the harness sees no roof, not a zero. */
    if (timed && r->roof_placed)
        snprintf(roof, sizeof roof, "%.1f", r->roof.pct);
    else
        snprintf(roof, sizeof roof, "NA");
    char dts[32];
    kb_dts_format(&r->problem->dt, dts, sizeof dts);
    fprintf(w->out, "RESULT kernel=%s model=%s layer=%s backend=%s dtype=%s "
            "host=%s device=%s metric=gflops value=%s unit=GFLOP/s median_s=%s "
            "pct_of_roof=%s valid=%s status=%s\n",
            kb_problem_kernel_name(r->problem), token(model, sizeof model, r->model),
            token(layer, sizeof layer, r->problem->name),
            token(backend, sizeof backend, r->backend), dts,
            token(host, sizeof host, st->host), b ? b->device : "cpu", value, median,
            roof, verdict(r->status), kb_status_name(r->status));
    return finish(w);
}

/* FAIL when anything failed, errored or the run was cut short; like the
 * exit code, MISTRUSTED cases alone leave it PASS. */
static int result_end(kb_writer *w, const kb_summary *s)
{
    bool pass = s->failed == 0 && s->errors == 0 && !s->interrupted;
    fprintf(w->out, "SUITE_STATUS %s\n", pass ? "PASS" : "FAIL");
    return finish(w);
}

/* The stream belongs to the caller (stdout). */
static void result_close(kb_writer *w)
{
    if (!w)
        return;
    free(w->state);
    free(w);
}

/* Returns the writer, or NULL when out of memory. */
kb_writer *kb_writer_result_lines(FILE *out)
{
    kb_writer *w = calloc(1, sizeof *w);
    result_state *st = calloc(1, sizeof *st);
    if (!w || !st) {
        free(w);
        free(st);
        return NULL;
    }
    w->out = out;
    w->state = st;
    w->begin = result_begin;
    w->write_case = result_case;
    w->end = result_end;
    w->close = result_close;
    return w;
}
