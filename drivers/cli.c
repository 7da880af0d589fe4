/* cli.c - kbench's front door: dispatches the verb, prints usage, the
 * version and the exit-code table shared by every verb's --help. */
#include "drivers/commands.h"
#include "drivers/peaks/peaks.h"
#include "drivers/roofline/report.h"
#include "iostage/cli/io.h"

#include "buildinfo.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} kb_verb;

/* Every verb, found by name. */
static const kb_verb verbs[] = {
    {"run", kb_cmd_run, "run problems on backends, validate, time, record"},
    {"list", kb_cmd_list, "list models, kernels, backends or a model's layers"},
    {"peaks", kb_cmd_peaks, "measure the machine's compute and memory ceilings"},
    {"report", kb_cmd_report, "roofline chart and tables from result files"},
    {"io", kb_cmd_io, "training-data input pipeline: gen, run, checkpoint"},
    {"baseline", kb_cmd_baseline, "reference bands per case from result files"},
    {"check", kb_cmd_check, "judge nodes' results against bands: PASS/FAIL, JUnit"},
    {"merge", kb_cmd_merge, "many nodes' results as one table, outlier nodes flagged"},
    {"compare", kb_cmd_compare, "two runs case by case: ratios, intervals, Mann-Whitney p"},
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

void kb_print_exit_codes(FILE *out)
{
    fputs("Exit codes:\n"
          "  0    every case ran and validated (SKIPPED and MISTRUSTED cases\n"
          "       allowed: MISTRUSTED, measured over 10 % above its roof\n"
          "       with --peaks, does not change the exit code, as in benchdnn)\n"
          "  1    a validation failed (some case FAILED)\n"
          "  2    usage or input error: bad option, descriptor, batch file,\n"
          "       shape, unknown model/backend/kernel, a problem too large\n"
          "       for memory\n"
          "  3    setup or runtime error: a backend or library failed (some\n"
          "       case ERROR), results could not be written\n"
          "  130, 143  interrupted by SIGINT or SIGTERM (128 + signal); every\n"
          "       case finished before the signal is in the outputs\n"
          "  When several apply, the highest of 1 and 3 wins.\n",
          out);
}

static void print_usage(FILE *out)
{
    fputs("Usage: kbench VERB [options]\n"
          "       kbench --help | --version\n\n"
          "Compute-kernel microbenchmarks (conv2d, conv3d, GEMM, batchnorm)\n"
          "validated against a reference implementation.\n\n"
          "Verbs:\n",
          out);
    for (size_t i = 0; i < NVERBS; i++)
        fprintf(out, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
    fputs("\n"
          "  kbench run [--model M] [--kernel K] [--layer REGEX] [--desc D]...\n"
          "             [--batch FILE]... [--backend B] [--mb N] [--dt f32|f64]\n"
          "             [--layout nchw|nhwc|ncdhw|ndhwc] [--threads N] [--reps N]\n"
          "             [--min-time SEC] [--warmup N] [--seed S] [--check-points N]\n"
          "             [--json FILE] [--csv FILE] [--result-lines] [--dump DIR]\n"
          "             [--quiet] [--peaks FILE]\n"
          "  kbench list models | kernels | backends\n"
          "  kbench list layers --model M [--mb N]\n"
          "  kbench peaks [--out FILE] [--threads N] [--quick]\n"
          "  kbench report RESULTS.jsonl... [--peaks FILE] --out DIR\n"
          "  kbench merge NODE-RESULTS.jsonl... [--out TABLE.md] [--svg FILE]\n"
          "               [--json FILE] [--z Z]\n"
          "  kbench io gen|run|checkpoint|merge ... (kbench io --help)\n"
          "  kbench baseline RESULTS.jsonl... --out BANDS [--k K | --roof-fraction F]\n"
          "  kbench check RESULTS.jsonl... --bands BANDS [--junit FILE]\n"
          "  kbench compare A.jsonl B.jsonl | RESULTS.jsonl --backends X,Y\n"
          "                 [--json FILE] [--md FILE] [--svg FILE]\n"
          "                 [--fail-if-slower PCT [--summary]]\n\n"
          "`kbench VERB --help` describes a verb's options.\n\n",
          out);
    kb_print_exit_codes(out);
}

/* Returns the verb's exit code, 0 for --help/--version, or 2 for a
 * missing or unknown verb (named on stderr with the valid ones). */
int kb_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_usage(stdout);
        return KB_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kbench %s (commit %s, %s %s, %s)\n", KB_VERSION, kb_git_commit(),
               KB_COMPILER_ID, KB_COMPILER_VERSION, KB_BUILD_TYPE);
        return KB_EXIT_OK;
    }
    for (size_t i = 0; i < NVERBS; i++)
        if (strcmp(argv[1], verbs[i].name) == 0)
            return verbs[i].fn(argc - 1, argv + 1);

    fprintf(stderr, "kbench: unknown verb '%s'; expected one of:", argv[1]);
    for (size_t i = 0; i < NVERBS; i++)
        fprintf(stderr, " %s", verbs[i].name);
    fputs(" (see kbench --help)\n", stderr);
    return KB_EXIT_USAGE;
}
