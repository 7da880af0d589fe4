/* check_verb.c - `kbench check`: every node's results (one file per node) judged against the bands of `kbench baseline`, PASS or FAIL
 * per case and per node with the reason, as a table on stdout and as
 * JUnit XML. */
#include "drivers/results/results.h"
#include "drivers/acceptance/bands.h"
#include "drivers/acceptance/junit.h"
#include "drivers/acceptance/verdict.h"
#include "drivers/commands.h"
#include "drivers/common/options.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *bands, *junit;
} options;

static const kb_option check_options[] = {
    {.name = "bands", .type = KB_OPT_STRING, .metavar = "BANDS",
     .offset = offsetof(options, bands),
     .help = "the bands file of kbench baseline (required)"},
    {.name = "junit", .type = KB_OPT_STRING, .metavar = "FILE",
     .offset = offsetof(options, junit),
     .help = "JUnit XML: a testsuite per node, a testcase per\ncase"},
    {0},
};

static const char *item_key(const kb_check_item *it, char *buf, size_t len)
{
    return it->band ? it->band->key : kb_result_case_key(it->c, true, buf, len);
}

static const char *verdict_word(kb_check_result r)
{
    static const char *const word[] = {[KB_CHECK_PASS] = "PASS",
        [KB_CHECK_FAIL] = "FAIL", [KB_CHECK_ERROR] = "FAIL",
        [KB_CHECK_UNJUDGED] = "--"};
    return word[r];
}

static void number(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.4g", v);
    else
        snprintf(buf, len, "-");
}

/* The table: one row per judged item, widths fitted to the names. */
static void print_table(const kb_check_node *nodes, size_t n)
{
    char key[KB_KEY_LEN];
    int wn = 4, wk = 4;
    for (size_t i = 0; i < n; i++) {
        wn = (int)fmax(wn, (double)strlen(nodes[i].name));
        for (size_t j = 0; j < nodes[i].nitems; j++)
            wk = (int)fmax(wk, (double)strlen(item_key(&nodes[i].items[j], key,
                                                         sizeof key)));
    }
    printf("%-*s  %-*s  %-10s  %9s  %9s  %-7s  %s\n", wn, "node", wk, "case",
           "status", "GFLOP/s", "lower", "verdict", "reason");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nodes[i].nitems; j++) {
            const kb_check_item *it = &nodes[i].items[j];
            char value[32], lower[32];
            number(it->value, value, sizeof value);
            number(it->band ? it->band->lower : NAN, lower, sizeof lower);
            printf("%-*s  %-*s  %-10s  %9s  %9s  %-7s  %s\n", wn, nodes[i].name,
                   wk, item_key(it, key, sizeof key),
                   it->c ? it->c->status : "(missing)", value, lower,
                   verdict_word(it->result),
                   strcmp(it->what, "within band") ? it->reason : it->what);
        }
}

/* One line per node and the overall status, for people and for grep.
 * Returns the count of nodes that failed. */
static size_t print_verdicts(const kb_check_node *nodes, size_t n)
{
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        const kb_check_node *node = &nodes[i];
        bool pass = kb_check_node_passed(node);
        failed += !pass;
        printf("NODE %s %s cases=%zu passed=%zu failed=%zu errors=%zu "
               "unjudged=%zu\n", node->name, pass ? "PASS" : "FAIL",
               node->nitems, node->passed, node->failed, node->errors,
               node->unjudged);
    }
    printf("CHECK_STATUS %s nodes=%zu passed=%zu failed=%zu\n",
           failed ? "FAIL" : "PASS", n, n - failed, failed);
    return failed;
}

/* Bands that judge none of the cases given come from another selection,
 * backend or build: every node would fail as missing everything, which
 * says nothing about the nodes. */
static bool any_match(const kb_check_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nodes[i].nitems; j++)
            if (nodes[i].items[j].band && nodes[i].items[j].c)
                return true;
    return false;
}

static int check_main(void *opts, int npaths, char **paths)
{
    const options *o = opts;
    kb_result_file *files = calloc((size_t)npaths, sizeof *files);
    kb_check_node *nodes = calloc((size_t)npaths, sizeof *nodes);
    kb_band_set bands = {0};
    bool loaded = false;
    char err[1024];
    int rc = KB_EXIT_USAGE;
    if (!files || !nodes) {
        fputs("kbench check: out of memory\n", stderr);
        rc = KB_EXIT_RUNTIME;
        goto out;
    }
    if (!o->bands) {
        fputs("kbench check: --bands BANDS is required (kbench check --help)\n",
              stderr);
        goto out;
    }
    if (kb_bands_read(o->bands, &bands, err, sizeof err) != 0) {
        fprintf(stderr, "kbench check: %s\n", err);
        goto out;
    }
    if (kb_result_files_load("check", paths, npaths, files) != 0)
        goto out;
    loaded = true;
    size_t n = (size_t)npaths;
    for (size_t i = 0; i < n; i++)
        if (kb_check_node_judge(&files[i], &bands, &nodes[i]) != 0) {
            fprintf(stderr, "kbench check: out of memory judging %s\n",
                    files[i].path);
            rc = KB_EXIT_RUNTIME;
            goto out;
        }
    if (kb_check_name_nodes(nodes, n) != 0) {
        fputs("kbench check: out of memory naming the nodes\n", stderr);
        rc = KB_EXIT_RUNTIME;
        goto out;
    }
    if (!any_match(nodes, n)) {
        fprintf(stderr, "kbench check: %s:%ld: none of its %zu bands matches a "
                "case of the %zu result file%s (bands made from another "
                "selection, backend or dtype?)\n", bands.path,
                bands.nbands ? bands.bands[0].line : 1L, bands.nbands, n,
                n > 1 ? "s" : "");
        goto out;
    }
    print_table(nodes, n);
    rc = print_verdicts(nodes, n) ? KB_EXIT_VALIDATION : KB_EXIT_OK;
    if (o->junit && kb_junit_write(nodes, n, bands.path, o->junit, err,
                                  sizeof err) != 0) {
        fprintf(stderr, "kbench check: %s\n", err);
        rc = KB_EXIT_RUNTIME;   /* the higher of 1 and 3 wins */
    }
out:
    for (int i = 0; nodes && i < npaths; i++)
        kb_check_node_free(&nodes[i]);
    if (loaded)
        kb_result_files_free(files, npaths);
    kb_band_set_free(&bands);
    free(nodes);
    free(files);
    return rc;
}

const kb_verb kb_verb_check = {
    .name = "check",
    .summary = "judge nodes' results against bands: PASS/FAIL, JUnit",
    .synopsis = "RESULTS.jsonl... --bands BANDS [--junit FILE]",
    .description =
        "Judge each result file (one per node) against the bands file of\n"
        "`kbench baseline`.  A case FAILS when it is below its band's lower\n"
        "bound, FAILED validation or is ERROR (whatever the band),\n"
        "MISTRUSTED, SKIPPED although banded, or missing from the node's\n"
        "file; above the upper bound is flagged, not failed.  Cases with no\n"
        "band are not judged unless they FAILED, ERROR or are MISTRUSTED.\n"
        "Prints a table and one `NODE name PASS|FAIL ...` line per node, then\n"
        "`CHECK_STATUS PASS|FAIL`; --junit writes JUnit XML (a testsuite per\n"
        "node, a testcase per case) for ReFrame and CI servers.",
    .min_args = 1,
    .max_args = -1,
    .opts_size = sizeof(options),
    .tables = (const kb_option *const[]){check_options, NULL},
    .run = check_main,
    .exit_codes = "  0    every node passed\n"
                  "  1    a case failed\n"
                  "  2    usage or input error (a file named with its line; bands\n"
                  "       that match no case)\n"
                  "  3    the JUnit file could not be written\n",
};
