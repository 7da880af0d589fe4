/* bands_io.c - the bands file (results/SCHEMA.md, "Bands file"): JSON
 * Lines, a "bands" header record, one "band" or "left_out" record per
 * case, an "end" record with the counts; written atomically, read back
 * refusing anything else with its path and line. */
#define _GNU_SOURCE   /* getline, open_memstream, strdup */
#include "drivers/acceptance/bands.h"

#include "drivers/common/atomic_file.h"
#include "drivers/results/results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A band's identity strings, kept as data so writing, reading and freeing
 * walk one list.  The optional ones may be absent ("" then). */
static const struct {
    const char *key;
    size_t offset;
    bool required;
} id_strings[] = {
    {"desc", offsetof(kb_band, desc), true},
    {"kernel", offsetof(kb_band, kernel), true},
    {"backend", offsetof(kb_band, backend), true},
    {"dtype", offsetof(kb_band, dtype), true},
    {"layout", offsetof(kb_band, layout), true},
    {"dir", offsetof(kb_band, dir), true},
    {"model", offsetof(kb_band, model), false},
    {"layer", offsetof(kb_band, layer), false},
};
#define NIDS (sizeof id_strings / sizeof id_strings[0])

static char **id_slot(kb_band *b, size_t i)
{
    return (char **)((char *)b + id_strings[i].offset);
}

void kb_band_free(kb_band *b)
{
    for (size_t i = 0; i < NIDS; i++)
        free(*id_slot(b, i));
    free(b->key);
    free(b->over);
    free(b->why);
}

void kb_band_set_free(kb_band_set *set)
{
    for (size_t i = 0; i < set->nbands; i++)
        kb_band_free(&set->bands[i]);
    for (size_t i = 0; i < set->nleft; i++)
        kb_band_free(&set->left[i]);
    free(set->bands);
    free(set->left);
    free(set->path);
    cJSON_Delete(set->header);
    memset(set, 0, sizeof *set);
}

/* ---- writing ---------------------------------------------------------- */

/* The record of b; NULL when out of memory.  NaN numbers print as null. */
static cJSON *band_record(kb_band *b)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "type", b->why ? "left_out" : "band");
    for (size_t i = 0; ok && i < NIDS; i++)
        ok = cJSON_AddStringToObject(o, id_strings[i].key, *id_slot(b, i)) != NULL;
    if (ok && b->why) {
        ok = cJSON_AddStringToObject(o, "why", b->why) != NULL;
    } else if (ok) {
        ok = cJSON_AddStringToObject(o, "unit", "GFLOP/s") &&
             cJSON_AddNumberToObject(o, "centre", b->centre) &&
             cJSON_AddNumberToObject(o, "spread", b->spread) &&
             cJSON_AddNumberToObject(o, "lower", b->lower) &&
             cJSON_AddNumberToObject(o, "upper", b->upper) &&
             cJSON_AddNumberToObject(o, "attainable", b->attainable) &&
             cJSON_AddStringToObject(o, "over", b->over) &&
             cJSON_AddNumberToObject(o, "n", (double)b->n);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Print o on one line of out; consumes o.  Returns 0, or -1 (out of
 * memory, o NULL included). */
static int put_line(FILE *out, cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return -1;
    fprintf(out, "%s\n", text);
    free(text);
    return 0;
}

int kb_bands_write(const kb_band_set *set, const char *path, char *err,
                   size_t len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    if (!out) {
        snprintf(err, len, "%s: out of memory", path);
        return -1;
    }
    int rc = put_line(out, cJSON_Duplicate(set->header, true));
    for (size_t i = 0; rc == 0 && i < set->nbands; i++)
        rc = put_line(out, band_record(&set->bands[i]));
    for (size_t i = 0; rc == 0 && i < set->nleft; i++)
        rc = put_line(out, band_record(&set->left[i]));
    if (rc == 0) {
        cJSON *end = cJSON_CreateObject();
        if (!end || !cJSON_AddStringToObject(end, "type", "end") ||
            !cJSON_AddNumberToObject(end, "bands", (double)set->nbands) ||
            !cJSON_AddNumberToObject(end, "left_out", (double)set->nleft)) {
            cJSON_Delete(end);
            end = NULL;
        }
        rc = put_line(out, end);
    }
    if (fclose(out) != 0 || rc != 0) {
        snprintf(err, len, "%s: out of memory", path);
        free(text);
        return -1;
    }
    rc = kb_write_atomic(path, text, n, err, len);
    free(text);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct {
    const char *path;
    long line;
    char *err;
    size_t len;
    kb_band_set *set;
    size_t cap_bands, cap_left;
    bool ended;
} reader;

static int fail(const reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(const reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->len, "%s:%ld: ", r->path, r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->len)
        vsnprintf(r->err + n, r->len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A finite number field, or (null_ok) null / absent as NAN. */
static int get_number(const reader *r, const cJSON *o, const char *key,
                      bool null_ok, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (null_ok && (!x || cJSON_IsNull(x))) {
        *v = NAN;
        return 0;
    }
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return fail(r, "band without a number \"%s\"", key);
    *v = x->valuedouble;
    return 0;
}

static char *dup_string(const reader *r, const cJSON *o, const char *key,
                        bool required, int *rc)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(x) && (required || (x && !cJSON_IsNull(x)))) {
        *rc = fail(r, "record without a string \"%s\"", key);
        return NULL;
    }
    char *s = strdup(cJSON_IsString(x) ? x->valuestring : "");
    if (!s)
        *rc = fail(r, "out of memory");
    return s;
}

/* Fill b from a band or left_out record o (b zeroed). */
static int read_band(const reader *r, const cJSON *o, bool left, kb_band *b)
{
    int rc = 0;
    b->line = r->line;
    for (size_t i = 0; rc == 0 && i < NIDS; i++)
        *id_slot(b, i) = dup_string(r, o, id_strings[i].key,
                                    id_strings[i].required, &rc);
    if (rc)
        return rc;
    kb_result_case id = {.desc = b->desc, .kernel = b->kernel,
                         .backend = b->backend, .dtype = b->dtype,
                         .layout = b->layout, .dir = b->dir};
    if (!(b->key = kb_result_case_key_dup(&id)))
        return fail(r, "out of memory");
    if (left) {
        b->why = dup_string(r, o, "why", true, &rc);
        return rc;
    }
    double n = 0;
    if (get_number(r, o, "centre", false, &b->centre) ||
        get_number(r, o, "spread", true, &b->spread) ||
        get_number(r, o, "lower", false, &b->lower) ||
        get_number(r, o, "upper", false, &b->upper) ||
        get_number(r, o, "attainable", true, &b->attainable) ||
        get_number(r, o, "n", false, &n))
        return -1;
    if (b->lower > b->upper)
        return fail(r, "band lower %g above its upper %g", b->lower, b->upper);
    if (n < 1 || n != floor(n))
        return fail(r, "band \"n\" %g is not a count of pooled values", n);
    b->n = (int64_t)n;
    b->over = dup_string(r, o, "over", true, &rc);
    return rc;
}

/* Append a zeroed band to *v (n used, *cap allocated); NULL when out of
 * memory. */
static kb_band *grow(kb_band **v, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        kb_band *p = realloc(*v, c * sizeof *p);
        if (!p)
            return NULL;
        *v = p, *cap = c;
    }
    kb_band *b = &(*v)[(*n)++];
    memset(b, 0, sizeof *b);
    return b;
}

static int check_header(const reader *r, const cJSON *o)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsString(schema))
        return fail(r, "header without a string \"schema\"");
    if (strcmp(schema->valuestring, KB_BANDS_SCHEMA) != 0)
        return fail(r, "schema \"%s\", expected \"%s\"", schema->valuestring,
                    KB_BANDS_SCHEMA);
    return 0;
}

/* The end record's counts must be what was read: a file cut or edited
 * between records is caught. */
static int check_end(reader *r, const cJSON *o)
{
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(o, "bands");
    const cJSON *nl = cJSON_GetObjectItemCaseSensitive(o, "left_out");
    if (!cJSON_IsNumber(nb) || !cJSON_IsNumber(nl))
        return fail(r, "end record without numbers \"bands\" and \"left_out\"");
    if (nb->valuedouble != (double)r->set->nbands ||
        nl->valuedouble != (double)r->set->nleft)
        return fail(r, "end record counts %g bands and %g left out, the file "
                    "holds %zu and %zu", nb->valuedouble, nl->valuedouble,
                    r->set->nbands, r->set->nleft);
    r->ended = true;
    return 0;
}

static int read_record(reader *r, const char *line, bool eof)
{
    cJSON *o = cJSON_Parse(line);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    int rc = 0;
    kb_band_set *set = r->set;
    if (!o)
        rc = fail(r, eof ? "truncated: the last line is not complete JSON"
                         : "not JSON");
    else if (!cJSON_IsObject(o) || !cJSON_IsString(type))
        rc = fail(r, "not a record: no string \"type\"");
    else if (r->ended)
        rc = fail(r, "a record after the end record");
    else if (!set->header) {
        if (strcmp(type->valuestring, "bands") != 0)
            rc = fail(r, "first record is \"%s\", expected the \"bands\" header "
                      "(is this a bands file from kbench baseline?)",
                      type->valuestring);
        else if ((rc = check_header(r, o)) == 0)
            set->header = o, o = NULL;
    } else if (strcmp(type->valuestring, "band") == 0 ||
               strcmp(type->valuestring, "left_out") == 0) {
        bool left = type->valuestring[0] == 'l';
        kb_band *b = left ? grow(&set->left, &set->nleft, &r->cap_left)
                          : grow(&set->bands, &set->nbands, &r->cap_bands);
        rc = b ? read_band(r, o, left, b) : fail(r, "out of memory");
    } else if (strcmp(type->valuestring, "end") == 0) {
        rc = check_end(r, o);
    }
    /* Other types: a later version's additions, ignored (SCHEMA.md). */
    cJSON_Delete(o);
    return rc;
}

static int cmp_band_key(const void *a, const void *b)
{
    const kb_band *x = *(kb_band *const *)a, *y = *(kb_band *const *)b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A case banded twice would be judged against whichever came first. */
static int check_unique(reader *r)
{
    kb_band_set *set = r->set;
    if (set->nbands < 2)
        return 0;
    kb_band **v = malloc(set->nbands * sizeof *v);
    if (!v)
        return fail(r, "out of memory");
    for (size_t i = 0; i < set->nbands; i++)
        v[i] = &set->bands[i];
    qsort(v, set->nbands, sizeof *v, cmp_band_key);
    int rc = 0;
    for (size_t i = 1; rc == 0 && i < set->nbands; i++)
        if (strcmp(v[i]->key, v[i - 1]->key) == 0) {
            r->line = v[i]->line;
            rc = fail(r, "a second band for case %s (the first is on line %ld)",
                      v[i]->key, v[i - 1]->line);
        }
    free(v);
    return rc;
}

int kb_bands_read(const char *path, kb_band_set *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    reader r = {.path = path, .err = err, .len = len, .set = out};
    FILE *in = fopen(path, "r");
    if (!in)
        return fail(&r, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t linecap = 0;
    ssize_t n = 0;
    int rc = (out->path = strdup(path)) ? 0 : fail(&r, "out of memory");
    while (rc == 0 && (n = getline(&line, &linecap, in)) > 0) {
        r.line++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        rc = read_record(&r, line, line[n - 1] != '\n');
    }
    if (rc == 0 && ferror(in))
        rc = fail(&r, "cannot read: %s", strerror(errno));
    r.line = r.line ? r.line : 1;
    if (rc == 0 && !out->header)
        rc = fail(&r, "empty: no \"bands\" header (expected a bands file from "
                  "kbench baseline)");
    if (rc == 0 && !r.ended)
        rc = fail(&r, "truncated: no end record after the last band");
    if (rc == 0)
        rc = check_unique(&r);
    free(line);
    fclose(in);
    if (rc)
        kb_band_set_free(out);
    return rc;
}
