/* test_options.c - the one option parser (drivers/common/options.c) on a
 * verb made for the test: both spellings of a value, defaults, bounds,
 * choices, repeated and renamed options, positional counts, sub-verbs, and
 * the message and exit code of each refusal.  stderr goes to a file so
 * that each message can be checked. */
#define _POSIX_C_SOURCE 200809L
#include "drivers/common/exit_codes.h"
#include "drivers/common/options.h"

#include "capture.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    int64_t reps;
    double z;
    const char *json;
    int mode;
    kb_strlist tag;
    bool quiet;
} test_opts;

static test_opts seen;   /* what the handler was given */
static int seen_args;

static int handler(void *opts, int argc, char **argv)
{
    (void)argv;
    seen = *(test_opts *)opts;
    seen.tag.v = NULL;   /* the parser frees the list after the handler */
    seen_args = argc;
    return 7;
}

static const char *const modes[] = {"fast", "slow", NULL};
static const kb_option options[] = {
    {.name = "reps", .type = KB_OPT_INT, .metavar = "N", .help = "reps",
     .offset = offsetof(test_opts, reps), .min = 1, .max = 100, .def = "5"},
    {.name = "z", .type = KB_OPT_DOUBLE, .metavar = "Z", .help = "z",
     .offset = offsetof(test_opts, z), .min = 0.5, .max = HUGE_VAL},
    {KB_OPTION_OUTPUT(json, test_opts, json, "the results")},
    {.name = "mode", .type = KB_OPT_CHOICE, .help = "mode", .choices = modes,
     .offset = offsetof(test_opts, mode)},
    {.name = "tag", .type = KB_OPT_LIST, .metavar = "T", .help = "tag",
     .offset = offsetof(test_opts, tag)},
    {KB_OPTION_QUIET(test_opts, quiet)},
    {KB_OPTION_RENAMED("out", "json")},
    {0},
};

static const kb_verb verb = {
    .name = "t", .synopsis = "[options] FILE...", .summary = "a test verb",
    .min_args = 1, .max_args = 2, .opts_size = sizeof(test_opts),
    .tables = (const kb_option *const[]){options, NULL}, .run = handler,
};

static char err[4096];

/* kb_verb_main on the words of line, stderr captured into err. */
static int run_line(const kb_verb *v, const char *line)
{
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    memset(&seen, 0, sizeof seen);
    check_capture c;
    check_capture_begin(&c, 2);
    int rc = kb_verb_main(v, NULL, argc, argv);
    check_capture_end(&c, err, sizeof err);
    return rc;
}

static void test_both_spellings(void)
{
    CHECK(run_line(&verb, "t --reps 9 --z=2.5 --json=a.json --mode slow x") == 7);
    CHECK(seen.reps == 9 && seen.z == 2.5 && seen.mode == 1 && seen_args == 1);
    CHECK_STR(seen.json, "a.json");
    CHECK(run_line(&verb, "t x y") == 7);
    CHECK(seen.reps == 5 && seen_args == 2);   /* the default */
}

static void test_bounds_and_types(void)
{
    CHECK(run_line(&verb, "t --reps=0 x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--reps '0': expected an integer from 1 to 100") != NULL);
    CHECK(run_line(&verb, "t --reps 3x x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--reps '3x'") != NULL);
    CHECK(run_line(&verb, "t --z 0.1 x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--z '0.1': expected a number >= 0.5") != NULL);
    CHECK(run_line(&verb, "t --z nan x") == KB_EXIT_USAGE);
    CHECK(run_line(&verb, "t --mode medium x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--mode 'medium': expected one of fast, slow") != NULL);
}

static void test_flags_lists_renamed(void)
{
    CHECK(run_line(&verb, "t --quiet --tag a --tag=b x") == 7);
    CHECK(seen.quiet && seen.tag.n == 2);
    CHECK(run_line(&verb, "t --quiet=1 x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--quiet takes no value, got '1'") != NULL);
    CHECK(run_line(&verb, "t --out r.json x") == 7);
    CHECK_STR(seen.json, "r.json");
    CHECK(strstr(err, "--out is now --json") != NULL);
}

static void test_refusals(void)
{
    CHECK(run_line(&verb, "t --nope x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "kbench t: unknown option '--nope'") != NULL);
    CHECK(run_line(&verb, "t -n x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "unknown option '-n'") != NULL);
    CHECK(run_line(&verb, "t x --reps") == KB_EXIT_USAGE);
    CHECK(strstr(err, "--reps needs a value (N)") != NULL);
    CHECK(run_line(&verb, "t") == KB_EXIT_USAGE);
    CHECK(strstr(err, "0 arguments given") && strstr(err, "usage: kbench t [options] FILE..."));
    CHECK(run_line(&verb, "t a b c") == KB_EXIT_USAGE);
    CHECK(seen.reps == 0);   /* the handler never ran */
}

static void test_double_dash(void)
{
    CHECK(run_line(&verb, "t -- --reps -") == 7);
    CHECK(seen_args == 2 && seen.reps == 5);
}

static void test_subverbs(void)
{
    const kb_verb parent = {
        .name = "p", .summary = "parent",
        .subverbs = (const kb_verb *const[]){&verb, NULL},
    };
    CHECK(run_line(&parent, "p t --reps=4 x") == 7 && seen.reps == 4);
    CHECK(run_line(&parent, "p q") == KB_EXIT_USAGE);
    CHECK(strstr(err, "kbench p: unknown sub-verb 'q'; expected one of: t") != NULL);
    CHECK(run_line(&parent, "p") == KB_EXIT_USAGE);
    CHECK(strstr(err, "usage: kbench p") != NULL);
    CHECK(run_line(&parent, "p t --nope x") == KB_EXIT_USAGE);
    CHECK(strstr(err, "kbench p t: unknown option '--nope'") != NULL);
}

static const check_test tests[] = {
    CHECK_TEST(both_spellings), CHECK_TEST(bounds_and_types),
    CHECK_TEST(flags_lists_renamed), CHECK_TEST(refusals),
    CHECK_TEST(double_dash), CHECK_TEST(subverbs), CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
