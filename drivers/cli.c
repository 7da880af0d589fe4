/* cli.c - kbench's front door: finds the verb by name in the one verb
 * table and hands it to the option parser (drivers/common/options.c),
 * which also writes every usage and help text from the same records. */
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "iostage/cli/io.h"

#include "buildinfo.h"

#include <string.h>

/* Every verb, in the order the usage lists them: a new verb is its folder
 * and one line here. */
static const kb_verb *const verbs[] = {
    &kb_verb_run,
    &kb_verb_list,
    &kb_verb_peaks,
    &kb_verb_report,
    &kb_verb_io,
    &kb_verb_baseline,
    &kb_verb_check,
    &kb_verb_merge,
    &kb_verb_compare,
    NULL,
};

/* Returns the verb's exit code, 0 for --help/--version, or 2 for a
 * missing or unknown verb (named on stderr with the valid ones). */
int kb_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        kb_usage(stdout, verbs);
        return KB_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kbench %s (commit %s, %s %s, %s)\n", KB_VERSION, kb_git_commit(),
               KB_COMPILER_ID, KB_COMPILER_VERSION, KB_BUILD_TYPE);
        return KB_EXIT_OK;
    }
    for (const kb_verb *const *v = verbs; *v; v++)
        if (strcmp(argv[1], (*v)->name) == 0)
            return kb_verb_main(*v, NULL, argc - 1, argv + 1);

    fprintf(stderr, "kbench: unknown verb '%s'; expected one of:", argv[1]);
    for (const kb_verb *const *v = verbs; *v; v++)
        fprintf(stderr, " %s", (*v)->name);
    fputs(" (see kbench --help)\n", stderr);
    return KB_EXIT_USAGE;
}
