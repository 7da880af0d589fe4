/* history_verb.c - the `kbench history` verb: its sub-verbs add, event,
 * changes, show and export, their option tables and exit codes. */
#include "history/history.h"
#include "drivers/commands.h"

#include <stddef.h>

#define O(F) offsetof(kb_history_opts, F)
#define STR(NAME, MV, F, HELP)                                              \
    {.name = NAME, .type = KB_OPT_STRING, .metavar = MV, .offset = O(F),    \
     .help = HELP}

static const char *const fail_choices[] = {"none", "regression", "any", NULL};

static const kb_option db_options[] = {
    STR("db", "FILE", db,
        "the history database (SQLite; on a local or cluster\n"
        "filesystem with working locks, not NFS without them)"),
    {0},
};

static const kb_option add_options[] = {
    STR("note", "TEXT", note, "a note kept with each run added"),
    {.name = "tag", .type = KB_OPT_LIST, .metavar = "KEY=VALUE", .offset = O(tags),
     .help = "a tag kept with each run added (repeatable)"},
    {0},
};

static const kb_option event_options[] = {
    STR("at", "TIME", at, "when the change was made (ISO 8601 UTC, or a date)"),
    STR("text", "TEXT", text, "what changed (an upgrade, a BIOS or driver change)"),
    {.name = "node", .type = KB_OPT_LIST, .metavar = "N", .offset = O(event_nodes),
     .help = "a node it changed (repeatable; none: the whole site)"},
    {0},
};

/* Which series: shared by changes and show. */
static const kb_option filter_options[] = {
    STR("since", "TIME", since, "runs at or after TIME only"),
    STR("until", "TIME", until, "runs at or before TIME only"),
    STR("node", "N", node, "one node's series only"),
    STR("backend", "B", backend, "one backend's series only"),
    STR("model", "M", model, "one model's cases only"),
    STR("case", "KEY", case_key,
        "one case only (its key: desc|kernel|dtype|layout|dir)"),
    {.name = "metric", .type = KB_OPT_CHOICE, .choices = kb_history_metric_names,
     .def = "median", .offset = O(metric),
     .help = "the figure followed: median time (lower is better),\n"
             "gflops or pct_of_roof (higher is better)"},
    {0},
};

/* How change points are found: shared by changes and show. */
static const kb_option detect_options[] = {
    {.name = "p", .type = KB_OPT_DOUBLE, .metavar = "P", .def = "0.001",
     .offset = O(p), .min = 1e-12, .max = 0.5,
     .help = "a change point's t-test p (corrected for the split's choice) must be below P"},
    {.name = "window", .type = KB_OPT_INT, .metavar = "W", .def = "50",
     .offset = O(window), .min = 6, .max = 100000,
     .help = "E-Divisive's window, in runs (it steps by half)"},
    {.name = "min-magnitude", .type = KB_OPT_DOUBLE, .metavar = "X", .def = "0",
     .offset = O(min_magnitude), .min = 0, .max = 1e6,
     .help = "drop changes whose relative size (0.05: 5 %) is at\nmost X"},
    {0},
};

static const kb_option changes_options[] = {
    {KB_OPTION_OUTPUT(json, kb_history_opts, json, "the change points as a JSON array")},
    {.name = "fail-on", .type = KB_OPT_CHOICE, .choices = fail_choices,
     .def = "none", .offset = O(fail_on),
     .help = "exit 1 when a regression (or any change) is found"},
    {0},
};

static const kb_option show_options[] = {
    STR("out", "DIR", out, "the folder of the page (DIR/index.html)"),
    {0},
};

static const kb_option export_options[] = {
    STR("jsonl", "FILE", jsonl, "where the JSON Lines go"),
    {0},
};

/* --db is required by every sub-verb; the parser has no required options. */
static int need(const char *verb, const char *what, const char *value)
{
    if (value)
        return 0;
    fprintf(stderr, "kbench history %s: %s is required\n", verb, what);
    return -1;
}

static int run_add(void *opts, int argc, char **argv)
{
    kb_history_opts *o = opts;
    return need("add", "--db FILE", o->db) ? KB_EXIT_USAGE
                                           : kb_history_add(o, argc, argv);
}

static int run_event(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    kb_history_opts *o = opts;
    if (need("event", "--db FILE", o->db) || need("event", "--at TIME", o->at) ||
        need("event", "--text TEXT", o->text))
        return KB_EXIT_USAGE;
    return kb_history_event(o);
}

static int run_changes(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    kb_history_opts *o = opts;
    return need("changes", "--db FILE", o->db) ? KB_EXIT_USAGE : kb_history_changes(o);
}

static int run_show(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    kb_history_opts *o = opts;
    if (need("show", "--db FILE", o->db) || need("show", "--out DIR", o->out))
        return KB_EXIT_USAGE;
    return kb_history_show(o);
}

static int run_export(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    kb_history_opts *o = opts;
    if (need("export", "--db FILE", o->db) || need("export", "--jsonl FILE", o->jsonl))
        return KB_EXIT_USAGE;
    return kb_history_export(o);
}

#define HISTORY_EXIT_CODES                                                  \
    "  0    ok\n"                                                           \
    "  1    changes --fail-on: a regression (or any change) was found\n"   \
    "  2    usage or input error: a bad option or time, a results file\n"  \
    "       that is malformed, truncated or of another schema (nothing\n"  \
    "       is written), a database that is not kbench's or is newer\n"    \
    "  3    runtime error: SQLite failed, an output could not be written\n"

#define HISTORY_SUBVERB(NAME, FN, MIN, MAX, SYNOPSIS, SUMMARY, ...)         \
    {.name = NAME, .synopsis = SYNOPSIS, .summary = SUMMARY,                \
     .min_args = MIN, .max_args = MAX, .opts_size = sizeof(kb_history_opts), \
     .tables = (const kb_option *const[]){db_options, __VA_ARGS__, NULL},   \
     .run = FN, .exit_codes = HISTORY_EXIT_CODES}

static const kb_verb add_verb = HISTORY_SUBVERB("add", run_add, 1, -1,
    "RESULTS.jsonl... --db FILE [--note TEXT] [--tag KEY=VALUE]...",
    "store runs (a file of the same content once), all or none",
    add_options);
static const kb_verb event_verb = HISTORY_SUBVERB("event", run_event, 0, 0,
    "--db FILE --at TIME --text TEXT [--node N]...",
    "record a known change of the system, for the site or some nodes",
    event_options);
static const kb_verb changes_verb = HISTORY_SUBVERB("changes", run_changes, 0, 0,
    "--db FILE [--since TIME] [--until TIME] [--node N] [--backend B]\n"
    " [--model M] [--case KEY] [--metric median|gflops|pct_of_roof] [--p P]\n"
    " [--window W] [--min-magnitude X] [--json FILE]\n"
    " [--fail-on regression|any]",
    "change points of every series (E-Divisive means, as Apache Otava),\n"
    "worst first, each a regression or an improvement",
    filter_options, detect_options, changes_options);
static const kb_verb show_verb = HISTORY_SUBVERB("show", run_show, 0, 0,
    "--db FILE --out DIR [--since TIME] [--until TIME] [--node N]\n"
    " [--backend B] [--model M] [--case KEY] [--metric M] [--p P] [--window W]\n"
    " [--min-magnitude X]",
    "a self-contained HTML page: a trend chart a series, change points\n"
    "and events marked, the changes in a table",
    filter_options, detect_options, show_options);
static const kb_verb export_verb = HISTORY_SUBVERB("export", run_export, 0, 0,
    "--db FILE --jsonl FILE",
    "everything stored, back out as JSON Lines",
    export_options);

const kb_verb kb_verb_history = {
    .name = "history", .synopsis = "add|event|changes|show|export ...",
    .summary = "performance history: runs stored, change points found",
    .exit_codes = HISTORY_EXIT_CODES,
    .subverbs = (const kb_verb *const[]){&add_verb, &event_verb, &changes_verb,
                                          &show_verb, &export_verb, NULL},
};
