/* compare_provenance.c - the fields in which two run records differ, each
 * with its kind, so the report can say which differences are the thing
 * being compared and which are mixed into the ratios. */
#define _GNU_SOURCE   /* strdup */
#include "drivers/compare/compare.h"

#include <stdlib.h>
#include <string.h>

/* The kind of each run-record field (results/SCHEMA.md).  Comparing two
 * builds, "build" fields are expected to differ; comparing two machines,
 * "machine" fields; a "run setting" differing is never what is compared.
 * A field not listed here is "other". */
static const struct {
    const char *key, *kind;
} kinds[] = {
    {"kbench_version", "build"}, {"git_commit", "build"},
    {"compiler", "build"},       {"build_type", "build"},
    {"build_flags", "build"},    {"libraries", "build"},
    {"backends", "build"},       {"host", "machine"},
    {"cpu_model", "machine"},    {"cpu_id", "machine"},
    {"cores_online", "machine"}, {"affinity", "machine"},
    {"threads", "run setting"},  {"omp_proc_bind", "run setting"},
    {"omp_places", "run setting"}, {"seed", "run setting"},
    {"warmup", "run setting"},   {"reps", "run setting"},
    {"min_time_s", "run setting"}, {"max_reps", "run setting"},
    {"warmup_time_s", "run setting"}, {"settle_max_s", "run setting"},
};

/* Fields that differ between any two runs and say nothing about them. */
static const char *const ignored[] = {"type", "schema", "date", "command_line"};

/* The kind of a dotted path, from its first component. */
static const char *kind_of(const char *path)
{
    size_t top = strcspn(path, ".");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].key) == top && strncmp(kinds[i].key, path, top) == 0)
            return kinds[i].kind;
    return "other";
}

static bool is_ignored(const char *key)
{
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (strcmp(ignored[i], key) == 0)
            return true;
    return false;
}

static char *json_text(const cJSON *v)
{
    return v ? cJSON_PrintUnformatted(v) : strdup("(absent)");
}

static int add_diff(kb_compare *c, const char *path, const cJSON *a, const cJSON *b)
{
    kb_cmp_diff *v = realloc(c->diffs, (c->ndiffs + 1) * sizeof *v);
    if (!v)
        return -1;
    c->diffs = v;
    kb_cmp_diff *d = &v[c->ndiffs++];
    d->key = strdup(path), d->kind = kind_of(path);
    d->a = json_text(a), d->b = json_text(b);
    return d->key && d->a && d->b ? 0 : -1;
}

static int diff(kb_compare *c, const char *path, const cJSON *a, const cJSON *b);

/* The fields of object o under path, against those of other: a field
 * missing from other is compared with "absent".  With both_sides false
 * only fields missing from other are compared (the second pass, which
 * finds the fields only the second object has).  Returns 0 or -1. */
static int diff_fields(kb_compare *c, const char *path, const cJSON *o,
                       const cJSON *other, bool o_is_a, bool both_sides)
{
    char sub[512];
    for (const cJSON *x = o->child; x; x = x->next) {
        if (!path[0] && is_ignored(x->string))
            continue;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(other, x->string);
        if (y && !both_sides)
            continue;
        snprintf(sub, sizeof sub, path[0] ? "%s.%s" : "%s%s", path, x->string);
        if (o_is_a ? diff(c, sub, x, y) : diff(c, sub, y, x))
            return -1;
    }
    return 0;
}

/* Compare a and b (either may be NULL: absent) under path ("" for the
 * whole record).  Objects are compared field by field, so a report names
 * "cpu_id.microcode" rather than the whole cpu_id. */
static int diff(kb_compare *c, const char *path, const cJSON *a, const cJSON *b)
{
    if (cJSON_IsObject(a) && cJSON_IsObject(b))
        return diff_fields(c, path, a, b, true, true) ||
               diff_fields(c, path, b, a, false, false) ? -1 : 0;
    if (a && b && cJSON_Compare(a, b, true))
        return 0;
    return add_diff(c, path, a, b);
}

int kb_compare_provenance(kb_compare *c)
{
    if (c->fa == c->fb)
        return 0;   /* --backends: one run */
    return diff(c, "", c->fa->run, c->fb->run);
}
