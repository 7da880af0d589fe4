/* baseline_verb.c - `kbench baseline`: reference bands from one node's
 * results or many, written as a bands file that records how it was made
 * and from which runs (results/SCHEMA.md, "Bands file"). */
#include "drivers/results/results.h"
#include "drivers/acceptance/bands.h"
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "drivers/common/clock.h"

#include "buildinfo.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Three robust spreads below the centre: a node inside them is as fast as
 * the reference within the noise of a normal spread (99.9 % one-sided). */
#define DEFAULT_K 3
/* The spread's floor, as a percentage of the centre: 1 %, as kbench
 * merge's outlier test. */
#define MIN_SPREAD_PCT 1

typedef struct {
    const char *bands;   /* the file to write */
    kb_band_rule rule;   /* k and fraction NaN until given */
} options;

static const kb_option baseline_options[] = {
    {.name = "bands", .type = KB_OPT_STRING, .metavar = "BANDS",
     .offset = offsetof(options, bands),
     .help = "the bands file to write (what check --bands reads;\nrequired)"},
    {KB_OPTION_RENAMED("out", "bands")},
    /* K and F must be above 0 (a band of no width; a lower bound that
     * passes anything), and the parser's bounds are inclusive: the least
     * values that still mean something. */
    {.name = "k", .type = KB_OPT_DOUBLE, .metavar = "K", .min = 0.01,
     .max = HUGE_VAL, .offset = offsetof(options, rule.k),
     .help = "spreads below the median (default " KB_XSTR(DEFAULT_K) ")"},
    {.name = "roof-fraction", .type = KB_OPT_DOUBLE, .metavar = "F",
     .min = 0.001, .max = 1, .offset = offsetof(options, rule.fraction),
     .help = "bands from the roofline instead (not with --k)"},
    {0},
};

/* A string member of a run record, "" when absent. */
static const char *run_str(const cJSON *run, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The header record: how the bands were made and from which runs.
 * NULL when out of memory.  NaN numbers print as null. */
static cJSON *header(const options *o, int npaths,
                     const kb_result_file *files)
{
    int argc;
    char **argv;
    kb_verb_command_line(&argc, &argv);
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
    for (int i = 0; ok && i < npaths; i++) {
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

/* --bands given, --k and --roof-fraction not both, K's default.
 * Returns 0, or -1 after naming what is wrong. */
static int finish_options(options *o)
{
    const char *why = !o->bands ? "--bands BANDS is required"
                    : !isnan(o->rule.k) && !isnan(o->rule.fraction)
                        ? "--k and --roof-fraction exclude each other"
                        : NULL;
    if (why) {
        fprintf(stderr, "kbench baseline: %s (kbench baseline --help)\n", why);
        return -1;
    }
    if (!isnan(o->rule.fraction))
        o->rule.method = "roof-fraction";
    else if (isnan(o->rule.k))
        o->rule.k = DEFAULT_K;
    return 0;
}

static int baseline_main(void *opts, int npaths, char **paths)
{
    options *o = opts;
    kb_result_file *files = calloc((size_t)npaths, sizeof *files);
    kb_band_set set = {0};
    char err[1024];
    int rc = KB_EXIT_USAGE;
    if (!files) {
        fputs("kbench baseline: out of memory\n", stderr);
        return KB_EXIT_RUNTIME;
    }
    if (finish_options(o) != 0 ||
        kb_result_files_load("baseline", paths, npaths, files) != 0)
        goto out;   /* files freed */
    if (kb_bands_make(files, (size_t)npaths, &o->rule, &set, err, sizeof err)) {
        fprintf(stderr, "kbench baseline: %s\n", err);
        rc = KB_EXIT_RUNTIME;
        goto loaded;
    }
    if (!(set.header = header(o, npaths, files))) {
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
    } else if (kb_bands_write(&set, o->bands, err, sizeof err) != 0) {
        fprintf(stderr, "kbench baseline: %s\n", err);
        rc = KB_EXIT_RUNTIME;
    } else {
        printf("kbench baseline: %zu bands (%s) from %d result file%s in %s",
               set.nbands, o->rule.method, npaths, npaths > 1 ? "s" : "",
               o->bands);
        printf(set.nleft ? "; %zu cases left without a band\n" : "\n", set.nleft);
        rc = KB_EXIT_OK;
    }
loaded:
    kb_result_files_free(files, npaths);
out:
    kb_band_set_free(&set);
    free(files);
    return rc;
}

static void baseline_init(void *opts)
{
    ((options *)opts)->rule = (kb_band_rule){"mad", NAN, NAN, MIN_SPREAD_PCT / 100.0};
}

const kb_verb kb_verb_baseline = {
    .name = "baseline",
    .summary = "reference bands per case from result files",
    .synopsis = "RESULTS.jsonl... --bands BANDS [--k K]\n"
                "RESULTS.jsonl... --bands BANDS --roof-fraction F",
    .description =
        "Make a reference band per case (descriptor, kernel, backend, dtype,\n"
        "layout, direction) on GFLOP/s from the PASSED cases of the result\n"
        "files, and write the bands file BANDS for `kbench check`.\n"
        "  (default)  lower bound = median - K x spread (K = "
        KB_XSTR(DEFAULT_K) "), upper bound =\n"
        "             median + K x spread (above it is flagged, not failed);\n"
        "             spread = 1.4826 x MAD, at least "
        KB_XSTR(MIN_SPREAD_PCT) " % of the median.  With\n"
        "             several result files (nodes) the median and MAD are over\n"
        "             the nodes' medians; with one, over that node's samples.\n"
        "  --roof-fraction F  lower bound = F x the attainable GFLOP/s of the\n"
        "             roofline (the results need pct_of_attainable: run with\n"
        "             --peaks), upper bound = the attainable; 0 < F <= 1.\n"
        "Cases without a PASSED record (or not placed, with --roof-fraction)\n"
        "get no band and are listed in the file and on stderr.",
    .min_args = 1,
    .max_args = -1,
    .opts_size = sizeof(options),
    .init = baseline_init,
    .tables = (const kb_option *const[]){baseline_options, NULL},
    .run = baseline_main,
    .exit_codes = "  0    written\n"
                  "  2    usage or input error (a file named with its line)\n"
                  "  3    the bands file could not be written\n",
};
