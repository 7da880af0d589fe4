/* results_read.c - reads a kbench JSON Lines results file (results/SCHEMA.md)
 * into a kb_result_file, refusing anything that is not one with its path and
 * line (results.h). */
#define _GNU_SOURCE   /* getline, strdup */
#include "drivers/results/results.h"

#include "drivers/record.h"   /* KB_SCHEMA_VERSION */
#include "drivers/stats.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string fields of a case record, kept as data so that reading and
 * freeing walk one list.  Optional ones may be absent or null ("" then). */
static const struct {
    const char *key;
    size_t offset;
    bool required;
} case_strings[] = {
    {"desc", offsetof(kb_result_case, desc), true},
    {"model", offsetof(kb_result_case, model), false},
    {"layer", offsetof(kb_result_case, layer), false},
    {"kernel", offsetof(kb_result_case, kernel), true},
    {"backend", offsetof(kb_result_case, backend), true},
    {"dtype", offsetof(kb_result_case, dtype), true},
    {"layout", offsetof(kb_result_case, layout), true},
    {"dir", offsetof(kb_result_case, dir), true},
    {"status", offsetof(kb_result_case, status), true},
    {"reason", offsetof(kb_result_case, reason), false},
};
#define NSTRINGS (sizeof case_strings / sizeof case_strings[0])

static const char *const statuses[] = {"PASSED", "FAILED", "MISTRUSTED",
                                       "SKIPPED", "ERROR"};

static char **string_slot(kb_result_case *c, size_t i)
{
    return (char **)((char *)c + case_strings[i].offset);
}

static void case_free(kb_result_case *c)
{
    for (size_t i = 0; i < NSTRINGS; i++)
        free(*string_slot(c, i));
    free(c->samples);
}

/* The reading state of one file: where errors are written and the line. */
typedef struct {
    const char *path;
    long line;
    char *err;
    size_t len;
} reader;

/* Writes "PATH:LINE: what" into the error buffer ("PATH: what" before the
 * first line is read).  Returns -1. */
__attribute__((format(printf, 2, 3)))
static int fail(const reader *r, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->line > 0)
        snprintf(r->err, r->len, "%s:%ld: %s", r->path, r->line, what);
    else
        snprintf(r->err, r->len, "%s: %s", r->path, what);
    return -1;
}

/* Number field key of o into *v: NaN when null (a non-finite number is
 * written as null), NaN when absent and not required.  Returns 0, or -1
 * when it is missing but required, or not a number. */
static int get_number(const reader *r, const cJSON *o, const char *key,
                      bool required, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NAN;
    if (cJSON_IsNumber(x))
        *v = x->valuedouble;
    else if (x && !cJSON_IsNull(x))
        return fail(r, "case field \"%s\" is not a number", key);
    else if (!x && required)
        return fail(r, "case record without \"%s\"", key);
    return 0;
}

static int read_strings(const reader *r, const cJSON *o, kb_result_case *c)
{
    for (size_t i = 0; i < NSTRINGS; i++) {
        const char *key = case_strings[i].key;
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!x && case_strings[i].required)
            return fail(r, "case record without \"%s\"", key);
        if (x && !cJSON_IsString(x) && !cJSON_IsNull(x))
            return fail(r, "case field \"%s\" is not a string", key);
        if (cJSON_IsNull(x) && case_strings[i].required)
            return fail(r, "case field \"%s\" is null", key);
        *string_slot(c, i) = strdup(cJSON_IsString(x) ? x->valuestring : "");
        if (!*string_slot(c, i))
            return fail(r, "out of memory");
    }
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (strcmp(c->status, statuses[i]) == 0)
            return 0;
    return fail(r, "unknown status \"%s\" (expected PASSED, FAILED, "
                   "MISTRUSTED, SKIPPED or ERROR)", c->status);
}

/* samples_s: required and non-empty for PASSED and MISTRUSTED (they were
 * timed), optional for FAILED (a first run that fails is not timed),
 * absent for SKIPPED and ERROR.  Every sample a finite time > 0. */
static int read_samples(const reader *r, const cJSON *o, kb_result_case *c)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "samples_s");
    bool timed = strcmp(c->status, "PASSED") == 0 ||
                 strcmp(c->status, "MISTRUSTED") == 0;
    bool untimed = strcmp(c->status, "SKIPPED") == 0 ||
                   strcmp(c->status, "ERROR") == 0;
    if (!a) {
        if (timed)
            return fail(r, "%s case without \"samples_s\"", c->status);
        return 0;
    }
    if (untimed)
        return fail(r, "%s case with \"samples_s\" (it did not run)", c->status);
    if (!cJSON_IsArray(a))
        return fail(r, "case field \"samples_s\" is not an array");
    int n = cJSON_GetArraySize(a);
    if (n == 0 && timed)
        return fail(r, "%s case with no samples", c->status);
    if (n == 0)
        return 0;
    c->samples = malloc((size_t)n * sizeof *c->samples);
    if (!c->samples)
        return fail(r, "out of memory for %d samples", n);
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble <= 0)
            return fail(r, "samples_s[%d] is not a time in seconds > 0", i);
        c->samples[i] = x->valuedouble;
    }
    c->nsamples = n;
    return 0;
}

/* roofline.pct_of_attainable of a placed case, else NaN. */
static int read_roof(const reader *r, const cJSON *o, kb_result_case *c)
{
    const cJSON *roof = cJSON_GetObjectItemCaseSensitive(o, "roofline");
    c->roof_pct = NAN;
    if (!roof)
        return 0;
    if (!cJSON_IsObject(roof))
        return fail(r, "case field \"roofline\" is not an object");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(roof, "placed")))
        return 0;
    const cJSON *pct = cJSON_GetObjectItemCaseSensitive(roof, "pct_of_attainable");
    if (cJSON_IsNumber(pct))
        c->roof_pct = pct->valuedouble;
    else if (!cJSON_IsNull(pct))
        return fail(r, "a placed case without a number \"roofline.pct_of_attainable\"");
    return 0;
}

/* Fill c from the case record o.  Returns 0, or -1 with the error set;
 * c then holds what was read so far, for case_free. */
static int read_case(const reader *r, const cJSON *o, kb_result_case *c)
{
    double seq, count;
    c->line = r->line;
    if (read_strings(r, o, c) || get_number(r, o, "seq", true, &seq) ||
        get_number(r, o, "count", true, &count) ||
        get_number(r, o, "flops", true, &c->flops) ||
        get_number(r, o, "bytes", true, &c->bytes) || read_samples(r, o, c) ||
        read_roof(r, o, c))
        return -1;
    if (!(seq >= 1) || !(count >= 1))
        return fail(r, "case field \"%s\" is not a positive integer",
                    !(seq >= 1) ? "seq" : "count");
    c->seq = (int64_t)seq;
    c->count = (int64_t)count;
    c->median_s = c->nsamples ? kb_median(c->samples, c->nsamples) : NAN;
    c->gflops = c->flops / c->median_s * 1e-9;   /* NaN without samples */
    return 0;
}

/* The first record: a run record of this schema with a string host. */
static int check_run(const reader *r, const cJSON *o, const char *type)
{
    if (strcmp(type, "run") != 0)
        return fail(r, "the first record is a \"%s\" record, not a \"run\" "
                       "record: not a kbench results file", type);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsString(schema))
        return fail(r, "run record without a string \"schema\"");
    if (strcmp(schema->valuestring, KB_SCHEMA_VERSION) != 0)
        return fail(r, "schema \"%s\", expected \"%s\" (written by another "
                       "kbench version)", schema->valuestring, KB_SCHEMA_VERSION);
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "host")))
        return fail(r, "run record without a string \"host\"");
    return 0;
}

/* Whether a case record's timings are performance: a correctness-only
 * backend's (gpusim: GPU kernels simulated on the CPU) say
 * "performance": false, and no verb that reads results judges, merges or
 * charts them. */
static bool is_performance(const cJSON *o)
{
    return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "performance"));
}

static int add_case(const reader *r, const cJSON *o, kb_result_file *f, size_t *cap)
{
    if (!is_performance(o)) {
        f->not_performance++;
        return 0;
    }
    if (f->ncases == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        kb_result_case *v = realloc(f->cases, n * sizeof *v);
        if (!v)
            return fail(r, "out of memory for %zu cases", n);
        f->cases = v, *cap = n;
    }
    kb_result_case *c = &f->cases[f->ncases++];
    memset(c, 0, sizeof *c);
    return read_case(r, o, c);
}

/* Keep the training_step record o (taking it).  There is one per model
 * and backend, a few per file: the array grows by one.  Returns 0, or -1
 * out of memory (o is then the caller's). */
static int add_step(const reader *r, cJSON *o, kb_result_file *f)
{
    kb_result_record *v = realloc(f->steps, (f->nsteps + 1) * sizeof *v);
    if (!v)
        return fail(r, "out of memory for %zu training steps", f->nsteps + 1);
    f->steps = v;
    f->steps[f->nsteps++] = (kb_result_record){r->line, o};
    return 0;
}

/* The record types of this schema.  Readers ignore other types: a later
 * writer may add one without a new schema version (SCHEMA.md,
 * "Versioning"). */
static bool is_known(const char *type)
{
    return strcmp(type, "run") == 0 || strcmp(type, "case") == 0 ||
           strcmp(type, "summary") == 0;
}

/* One non-blank line: parse it and take its record.  Returns 0 or -1. */
static int read_record(const reader *r, const char *line, size_t n, bool eof,
                       kb_result_file *f, size_t *cap)
{
    if (strlen(line) != n)
        return fail(r, "a NUL byte in the line: not JSON Lines");
    cJSON *o = cJSON_ParseWithOpts(line, NULL, true);
    if (!o)
        return fail(r, eof ? "truncated: the last line is not complete JSON "
                             "(was the run killed while writing?)"
                           : "not JSON");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    int rc = 0;
    if (!cJSON_IsObject(o) || !cJSON_IsString(t)) {
        rc = fail(r, "not a record: expected a JSON object with a string \"type\"");
    } else if (!f->run) {
        rc = check_run(r, o, t->valuestring);
        if (rc == 0) {
            f->run = o;
            f->host = cJSON_GetObjectItemCaseSensitive(o, "host")->valuestring;
            return 0;
        }
    } else if (f->complete && is_known(t->valuestring)) {
        rc = fail(r, "a \"%s\" record after the summary record (two files "
                     "joined?)", t->valuestring);
    } else if (strcmp(t->valuestring, "case") == 0) {
        rc = add_case(r, o, f, cap);
    } else if (strcmp(t->valuestring, "summary") == 0) {
        f->complete = true;
    } else if (strcmp(t->valuestring, "run") == 0) {
        rc = fail(r, "a second \"run\" record (two files joined?)");
    } else if (strcmp(t->valuestring, "training_step") == 0) {
        rc = add_step(r, o, f);
        if (rc == 0)
            return 0;   /* o is kept in f->steps */
    }   /* another type: added by a later writer, ignored (SCHEMA.md) */
    cJSON_Delete(o);
    return rc;
}

int kb_result_file_load(const char *path, kb_result_file *out, char *err,
                        size_t len)
{
    memset(out, 0, sizeof *out);
    reader r = {path, 0, err, len};
    FILE *in = fopen(path, "r");
    if (!in)
        return fail(&r, "cannot open: %s", strerror(errno));
    out->path = strdup(path);
    char *line = NULL;
    size_t linecap = 0, cap = 0;
    ssize_t n;
    int rc = out->path ? 0 : fail(&r, "out of memory");
    while (rc == 0 && (n = getline(&line, &linecap, in)) > 0) {
        r.line++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;   /* blank lines carry no record */
        rc = read_record(&r, line, (size_t)n, line[n - 1] != '\n', out, &cap);
    }
    if (rc == 0 && ferror(in))
        rc = fail(&r, "cannot read: %s", strerror(errno));
    if (rc == 0 && !out->run) {
        r.line = r.line ? r.line : 1;
        rc = fail(&r, "empty: no run record (expected kbench JSON Lines results)");
    }
    if (rc == 0 && out->ncases == 0 && out->not_performance > 0) {
        r.line = 1;
        rc = fail(&r, "its %zu case records are a correctness-only backend's "
                      "(\"performance\": false, e.g. gpusim): their timings "
                      "are not performance, nothing to read", out->not_performance);
    }
    free(line);
    fclose(in);
    if (rc)
        kb_result_file_free(out);
    return rc;
}

void kb_result_file_free(kb_result_file *f)
{
    for (size_t i = 0; i < f->ncases; i++)
        case_free(&f->cases[i]);
    free(f->cases);
    for (size_t i = 0; i < f->nsteps; i++)
        cJSON_Delete(f->steps[i].json);
    free(f->steps);
    free(f->path);
    cJSON_Delete(f->run);
    memset(f, 0, sizeof *f);
}

const char *kb_result_case_key(const kb_result_case *c, bool with_backend,
                               char *buf, size_t len)
{
    if (with_backend)
        snprintf(buf, len, "%s|%s|%s|%s|%s|%s", c->desc, c->kernel, c->backend,
                 c->dtype, c->layout, c->dir);
    else
        snprintf(buf, len, "%s|%s|%s|%s|%s", c->desc, c->kernel, c->dtype,
                 c->layout, c->dir);
    return buf;
}

bool kb_result_case_timed(const kb_result_case *c, bool mistrusted_ok)
{
    bool ok = strcmp(c->status, "PASSED") == 0 ||
              (mistrusted_ok && strcmp(c->status, "MISTRUSTED") == 0);
    return ok && c->nsamples > 0;
}
