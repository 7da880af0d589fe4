/* cli.c - the program as a verb whose option is --version and whose sub-verbs
 * are the verbs this build has (verbs_built.def, from drivers/CMakeLists.txt). */
#include "drivers/commands.h"
#include "drivers/common/options.h"

#include "buildinfo.h"

static const kb_option version_option[] = {
    {.name = "version", .type = KB_OPT_FLAG, .help = "version, commit, compiler, build type"},
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
    .name = "kbench", .opts_size = sizeof(bool), .run = print_version,
    .tables = (const kb_option *const[]){version_option, NULL},
    .subverbs = (const kb_verb *const[]){
#define KB_VERB(name) &kb_verb_##name,
#include "verbs_built.def"
#undef KB_VERB
        NULL},
};

int kb_main(int argc, char **argv) { return kb_verb_main(&program, NULL, argc, argv); }
