/* cmd_baseline.c - the `kbench baseline` verb: reference bands from one
 * node's results or many, written as a bands file that records how it was
 * made and from which runs (results/SCHEMA.md, "Bands file"). */
#include "drivers/acceptance/acceptance.h"
#include "drivers/acceptance/bands.h"
#include "drivers/commands.h"
#include "drivers/peaks/peaks.h"

#include "buildinfo.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Three robust spreads below the centre: a node inside them is as fast as
 * the reference within the noise of a normal spread (99.9 % one-sided). */
#define DEFAULT_K 3.0
/* The spread's floor, as a fraction of the centre: 1 %, as kbench merge's
 * outlier test. */
#define MIN_SPREAD 0.01

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kbench baseline RESULTS.jsonl... --out BANDS [--k K]\n"
        "       kbench baseline RESULTS.jsonl... --out BANDS --roof-fraction F\n"
        "Make a reference band per case (descriptor, kernel, backend, dtype,\n"
        "layout, direction) on GFLOP/s from the PASSED cases of the result\n"
        "files, and write the bands file BANDS for `kbench check`.\n"
        "  (default)  lower bound = median - K x spread (K = %g), upper bound =\n"
        "             median + K x spread (above it is flagged, not failed);\n"
        "             spread = 1.4826 x MAD, at least %g %% of the median.  With\n"
        "             several result files (nodes) the median and MAD are over\n"
        "             the nodes' medians; with one, over that node's samples.\n"
        "  --roof-fraction F  lower bound = F x the attainable GFLOP/s of the\n"
        "             roofline (the results need pct_of_attainable: run with\n"
        "             --peaks), upper bound = the attainable; 0 < F <= 1.\n"
        "Cases without a PASSED record (or not placed, with --roof-fraction)\n"
        "get no band and are listed in the file and on stderr.\n"
        "Exit codes: 0 written, 2 usage or input error (a file named with\n"
        "its line), 3 the bands file could not be written.\n",
        DEFAULT_K, 100 * MIN_SPREAD);
}

typedef struct {
    char **paths;
    int npaths;
    const char *out;
    kb_band_rule rule;
} options;

/* A number in (lo, hi] from text, or false. */
static bool parse_number(const char *text, double lo, double hi, double *v)
{
    char *end;
    *v = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*v) && *v > lo && *v <= hi;
}

/* Returns 0 to run, 1 after --help, -1 after a usage message. */
static int parse_opts(int argc, char **argv, options *o)
{
    o->rule = (kb_band_rule){"mad", DEFAULT_K, NAN, MIN_SPREAD};
    bool k_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--out") == 0 && v) {
            o->out = argv[++i];
        } else if (strcmp(a, "--k") == 0 && v) {
            if (!parse_number(argv[++i], 0, INFINITY, &o->rule.k)) {
                fprintf(stderr, "kbench baseline: --k '%s': expected a number "
                        "above 0\n", v);
                return -1;
            }
            k_given = true;
        } else if (strcmp(a, "--roof-fraction") == 0 && v) {
            if (!parse_number(argv[++i], 0, 1, &o->rule.fraction)) {
                fprintf(stderr, "kbench baseline: --roof-fraction '%s': expected "
                        "a number in (0, 1]\n", v);
                return -1;
            }
            o->rule.method = "roof-fraction";
        } else if (a[0] != '-') {
            o->paths[o->npaths++] = argv[i];
        } else {
            fprintf(stderr, "kbench baseline: unexpected \"%s\" (options need "
                    "a value)\n", a);
            usage(stderr);
            return -1;
        }
    }
    const char *why = o->npaths == 0 ? "no result file given"
                    : !o->out ? "--out BANDS is required"
                    : k_given && !isnan(o->rule.fraction)
                        ? "--k and --roof-fraction exclude each other"
                        : NULL;
    if (why) {
        fprintf(stderr, "kbench baseline: %s\n", why);
        usage(stderr);
        return -1;
    }
    return 0;
}

/* A string member of a run record, "" when absent. */
static const char *run_str(const cJSON *run, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The header record: how the bands were made and from which runs.
 * NULL when out of memory.  NaN numbers print as null. */
static cJSON *header(const options *o, int argc, char **argv,
                     const kb_result_file *files)
{
    char date[64];
    kb_utc_date(date, sizeof date);
    bool mad = strcmp(o->rule.method, "mad") == 0;
    cJSON *h = cJSON_CreateObject(), *cmd = NULL, *runs = NULL;
    bool ok = h && cJSON_AddStringToObject(h, "type", "bands") &&
         cJSON_AddStringToObject(h, "schema", KB_BANDS_SCHEMA) &&
         cJSON_AddStringToObject(h, "method", o->rule.method) &&
         cJSON_AddNumberToObject(h, "k", mad ? o->rule.k : NAN) &&
         cJSON_AddNumberToObject(h, "roof_fraction", o->rule.fraction) &&
         cJSON_AddNumberToObject(h, "min_spread", o->rule.min_spread) &&
         cJSON_AddStringToObject(h, "unit", "GFLOP/s") &&
         cJSON_AddStringToObject(h, "kbench_version", KB_VERSION) &&
         cJSON_AddStringToObject(h, "git_commit", kb_git_commit()) &&
         cJSON_AddStringToObject(h, "date", date) &&
         (cmd = cJSON_AddArrayToObject(h, "command_line")) &&
         (runs = cJSON_AddArrayToObject(h, "runs"));
    /* argv as given, one string each: exact, no shell quoting to undo. */
    ok = ok && cJSON_AddItemToArray(cmd, cJSON_CreateString("kbench"));
    for (int i = 0; ok && i < argc; i++)
        ok = cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
    for (int i = 0; ok && i < o->npaths; i++) {
        const cJSON *run = files[i].run;
        cJSON *r = cJSON_CreateObject();
        if (!r || !cJSON_AddItemToArray(runs, r)) {
            cJSON_Delete(r);
            ok = false;
            break;
        }
        ok = cJSON_AddStringToObject(r, "path", files[i].path) &&
             cJSON_AddStringToObject(r, "host", run_str(run, "host")) &&
             cJSON_AddStringToObject(r, "date", run_str(run, "date")) &&
             cJSON_AddStringToObject(r, "git_commit", run_str(run, "git_commit")) &&
             cJSON_AddStringToObject(r, "cpu_model", run_str(run, "cpu_model")) &&
             cJSON_AddStringToObject(r, "kbench_version",
                                     run_str(run, "kbench_version")) &&
             cJSON_AddNumberToObject(r, "cases", (double)files[i].ncases);
    }
    if (!ok) {
        cJSON_Delete(h);
        return NULL;
    }
    return h;
}

int kb_cmd_baseline(int argc, char **argv)
{
    options o = {.paths = calloc((size_t)argc, sizeof *o.paths)};
    kb_result_file *files = calloc((size_t)argc, sizeof *files);
    kb_band_set set = {0};
    char err[1024];
    int rc = KB_EXIT_USAGE;
    if (!o.paths || !files) {
        fputs("kbench baseline: out of memory\n", stderr);
        rc = KB_EXIT_RUNTIME;
        goto out;
    }
    int p = parse_opts(argc, argv, &o);
    if (p != 0) {
        rc = p > 0 ? KB_EXIT_OK : KB_EXIT_USAGE;
        goto out;
    }
    if (kb_acceptance_load("baseline", o.paths, o.npaths, files) != 0)
        goto out;   /* files freed */
    if (kb_bands_make(files, (size_t)o.npaths, &o.rule, &set, err, sizeof err)) {
        fprintf(stderr, "kbench baseline: %s\n", err);
        rc = KB_EXIT_RUNTIME;
        goto loaded;
    }
    if (!(set.header = header(&o, argc, argv, files))) {
        fputs("kbench baseline: out of memory for the bands header\n", stderr);
        rc = KB_EXIT_RUNTIME;
        goto loaded;
    }
    for (size_t i = 0; i < set.nleft; i++)
        fprintf(stderr, "kbench baseline: no band for %s: %s\n",
                set.left[i].key, set.left[i].why);
    if (set.nbands == 0) {
        /* A bands file that bands nothing would pass every node. */
        fprintf(stderr, "kbench baseline: %s:%ld: no case to make a band from "
                "(every case left out, above)\n", files[0].path,
                files[0].cases[0].line);
        rc = KB_EXIT_USAGE;
    } else if (kb_bands_write(&set, o.out, err, sizeof err) != 0) {
        fprintf(stderr, "kbench baseline: %s\n", err);
        rc = KB_EXIT_RUNTIME;
    } else {
        printf("kbench baseline: %zu bands (%s) from %d result file%s in %s",
               set.nbands, o.rule.method, o.npaths, o.npaths > 1 ? "s" : "",
               o.out);
        printf(set.nleft ? "; %zu cases left without a band\n" : "\n", set.nleft);
        rc = KB_EXIT_OK;
    }
loaded:
    kb_acceptance_free(files, o.npaths);
out:
    kb_band_set_free(&set);
    free(files);
    free(o.paths);
    return rc;
}
