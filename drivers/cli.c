/* cli.c - kbench's front door: the verb table, made from verbs.def, and
 * the program's own options, handed to the one parser
 * (drivers/common/options.c), which dispatches and writes every usage
 * and help text from the same records. */
#include "drivers/commands.h"
#include "drivers/common/options.h"

#include "buildinfo.h"

#include <stddef.h>

/* verbs.def less the optional verbs this build left out (drivers/
 * CMakeLists.txt writes it). */
static const kb_verb *const verbs[] = {
#define KB_VERB(name) &kb_verb_##name,
#include "verbs_built.def"
#undef KB_VERB
    NULL,
};

typedef struct {
    bool version;
} program_opts;

static const kb_option program_options[] = {
    {.name = "version", .type = KB_OPT_FLAG, .offset = offsetof(program_opts, version),
     .help = "kbench's version, commit, compiler and build type"},
    {0},
};

static int print_version(void *opts, int argc, char **argv)
{
    (void)opts, (void)argc, (void)argv;
    printf("kbench %s (commit %s, %s %s, %s)\n", KB_VERSION, kb_git_commit(),
           KB_COMPILER_ID, KB_COMPILER_VERSION, KB_BUILD_TYPE);
    return KB_EXIT_OK;
}

static const kb_verb program = {
    .name = "kbench",
    .opts_size = sizeof(program_opts),
    .tables = (const kb_option *const[]){program_options, NULL},
    .run = print_version,
    .subverbs = verbs,
};

int kb_main(int argc, char **argv)
{
    return kb_program_main(&program, argc, argv);
}
