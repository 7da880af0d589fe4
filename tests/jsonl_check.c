/* jsonl_check.c - validates a kbench JSON Lines results file for the CLI
 * tests: every line complete and parseable, the first record a run record
 * of the current schema, case records with their required fields, a
 * summary (when present) last and agreeing with the cases.
 *
 * Usage: jsonl_check FILE [--cases N] [--status STATUS] [--summary]
 *   --cases N        exactly N case records
 *   --status STATUS  every case has this status
 *   --summary        the summary record must be present
 * Exit status 0 when the file is valid, 1 otherwise (reasons on stderr). */
#define _GNU_SOURCE   /* getline */
#include "drivers/record.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static int errors;

static void fail(long line, const char *what, const char *detail)
{
    fprintf(stderr, "line %ld: %s%s%s\n", line, what, detail ? ": " : "",
            detail ? detail : "");
    errors++;
}

/* Each key must exist with the type the predicate accepts. */
static void need(long line, const cJSON *o, const char *key,
                 cJSON_bool (*is)(const cJSON *))
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || !is(v))
        fail(line, "missing or mistyped field", key);
}

/* Numbers JSON cannot hold (NaN, Inf) are written as null. */
static cJSON_bool number_or_null(const cJSON *v)
{
    return cJSON_IsNumber(v) || cJSON_IsNull(v);
}

static void check_run(long line, const cJSON *o)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, KB_SCHEMA_VERSION) != 0)
        fail(line, "run record: schema is not", KB_SCHEMA_VERSION);
    static const char *const strings[] = {
        "host", "cpu_model", "affinity", "compiler", "build_type", "git_commit",
        "kbench_version", "date", "command_line", "libraries"};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        need(line, o, strings[i], cJSON_IsString);
    static const char *const numbers[] = {
        "threads", "seed", "warmup", "reps", "min_time_s", "max_reps",
        "warmup_time_s", "settle_max_s"};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        need(line, o, numbers[i], cJSON_IsNumber);
    need(line, o, "backends", cJSON_IsObject);
}

/* Returns the case's status name, or NULL when it is not a valid one. */
static const char *check_case(long line, const cJSON *o)
{
    static const char *const strings[] = {
        "desc", "model", "layer", "kernel", "backend", "dtype", "layout", "dir",
        "status", "reason"};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        need(line, o, strings[i], cJSON_IsString);
    need(line, o, "seq", cJSON_IsNumber);
    need(line, o, "count", cJSON_IsNumber);
    need(line, o, "mb", number_or_null);
    need(line, o, "flops", cJSON_IsNumber);
    need(line, o, "flops_dense", cJSON_IsNumber);
    need(line, o, "bytes", cJSON_IsNumber);
    need(line, o, "llc_bytes", number_or_null);
    /* padding can only take taps away */
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(o, "flops"),
                *fd = cJSON_GetObjectItemCaseSensitive(o, "flops_dense");
    if (cJSON_IsNumber(fl) && cJSON_IsNumber(fd) && fl->valuedouble > fd->valuedouble)
        fail(line, "flops above flops_dense", NULL);
    need(line, o, "ai", number_or_null);

    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
    const char *status = cJSON_IsString(st) ? st->valuestring : "";
    bool ran = strcmp(status, "PASSED") == 0 || strcmp(status, "FAILED") == 0 ||
               strcmp(status, "MISTRUSTED") == 0;
    if (!ran && strcmp(status, "SKIPPED") != 0 && strcmp(status, "ERROR") != 0) {
        fail(line, "unknown status", status);
        return NULL;
    }
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(o, "samples_s");
    if (ran) {
        if (!cJSON_IsArray(samples) || cJSON_GetArraySize(samples) < 1)
            fail(line, "case that ran has no samples_s", status);
        need(line, o, "stats", cJSON_IsObject);
        need(line, o, "timer", cJSON_IsString);
        need(line, o, "warmup", cJSON_IsNumber);
        need(line, o, "settle_s", number_or_null);
        need(line, o, "gflops", number_or_null);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "validation");
        if (!cJSON_IsObject(v))
            fail(line, "case that ran has no validation", status);
        else {
            need(line, v, "mode", cJSON_IsString);
            need(line, v, "points", cJSON_IsNumber);
            need(line, v, "checked", cJSON_IsNumber);
            need(line, v, "mismatches", cJSON_IsNumber);
        }
    } else if (strcmp(status, "SKIPPED") == 0 &&
               (samples || cJSON_GetObjectItemCaseSensitive(o, "stats"))) {
        fail(line, "SKIPPED case has samples or stats", NULL);
    }
    return status;
}

static int64_t int_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: jsonl_check FILE [--cases N] [--status S] [--summary]\n", stderr);
        return 2;
    }
    long want_cases = -1;
    const char *want_status = NULL;
    bool want_summary = false;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            want_cases = atol(argv[++i]);
        else if (strcmp(argv[i], "--status") == 0 && i + 1 < argc)
            want_status = argv[++i];
        else if (strcmp(argv[i], "--summary") == 0)
            want_summary = true;
        else {
            fprintf(stderr, "jsonl_check: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    long line = 0, cases = 0, last_seq = 0;
    int64_t tally[5] = {0};   /* PASSED, FAILED, SKIPPED, ERROR, MISTRUSTED */
    bool summary_seen = false;
    while ((len = getline(&buf, &cap, f)) > 0) {
        line++;
        if (buf[len - 1] != '\n')
            fail(line, "incomplete line (no newline)", NULL);
        if (summary_seen)
            fail(line, "record after the summary", NULL);
        cJSON *o = cJSON_Parse(buf);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
        if (!cJSON_IsObject(o) || !cJSON_IsString(type)) {
            fail(line, "not a JSON object with a string \"type\"", NULL);
            cJSON_Delete(o);
            continue;
        }
        const char *t = type->valuestring;
        if (line == 1 && strcmp(t, "run") != 0)
            fail(line, "first record is not a run record", t);
        if (strcmp(t, "run") == 0) {
            if (line != 1)
                fail(line, "run record after line 1", NULL);
            check_run(line, o);
        } else if (strcmp(t, "case") == 0) {
            cases++;
            long seq = (long)int_field(o, "seq");
            if (seq <= last_seq)
                fail(line, "seq does not increase", NULL);
            last_seq = seq;
            const char *status = check_case(line, o);
            static const char *const names[] = {"PASSED", "FAILED", "SKIPPED",
                                                "ERROR", "MISTRUSTED"};
            for (int k = 0; status && k < 5; k++)
                tally[k] += strcmp(status, names[k]) == 0;
            if (status && want_status && strcmp(status, want_status) != 0)
                fail(line, "unexpected status", status);
        } else if (strcmp(t, "summary") == 0) {
            summary_seen = true;
            if (int_field(o, "passed") != tally[0] ||
                int_field(o, "failed") != tally[1] ||
                int_field(o, "skipped") != tally[2] ||
                int_field(o, "errors") != tally[3] ||
                int_field(o, "mistrusted") != tally[4])
                fail(line, "summary counts disagree with the case records", NULL);
            need(line, o, "interrupted", cJSON_IsBool);
            /* backends a default run left out: counted, never in a case */
            need(line, o, "left_out", cJSON_IsNumber);
            need(line, o, "left_out_backends", cJSON_IsArray);
        } else {
            fail(line, "unknown record type", t);
        }
        cJSON_Delete(o);
    }
    free(buf);
    fclose(f);
    if (line == 0)
        fail(0, "empty file", argv[1]);
    if (want_cases >= 0 && cases != want_cases) {
        fprintf(stderr, "%s: %ld case records, expected %ld\n", argv[1], cases, want_cases);
        errors++;
    }
    if (want_summary && !summary_seen)
        fail(line, "no summary record", NULL);
    if (errors)
        fprintf(stderr, "%s: %d problem(s)\n", argv[1], errors);
    return errors ? 1 : 0;
}
