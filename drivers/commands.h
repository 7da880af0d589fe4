/* commands.h - the kbench verbs and the exit codes they share.
 *
 * Exit codes (printed by `kbench --help`, listed in README.md):
 *   0   every case ran and validated (SKIPPED and MISTRUSTED cases
 *       allowed: MISTRUSTED alone does not change the code, as in benchdnn)
 *   1   a validation failed (some case FAILED)
 *   2   usage or input error: bad option, descriptor, batch file, shape,
 *       unknown model/backend/kernel, a problem too large for memory
 *   3   setup or runtime error: a backend or library failed (some case
 *       ERROR), results could not be written
 *   130, 143  interrupted by SIGINT or SIGTERM (128 + signal); every case
 *       finished before the signal is in the outputs
 * When several apply, the highest of 1 and 3 wins. */
#ifndef KB_COMMANDS_H
#define KB_COMMANDS_H

#include <stdio.h>

enum {
    KB_EXIT_OK = 0,
    KB_EXIT_VALIDATION = 1,
    KB_EXIT_USAGE = 2,
    KB_EXIT_RUNTIME = 3,
};

/* Entry point of the kbench program (cli.c): dispatches on argv[1]. */
int kb_main(int argc, char **argv);

/* Verbs, each declared as data (drivers/common/options.h) in its folder. */
struct kb_verb;
extern const struct kb_verb kb_verb_run;      /* run/ */
extern const struct kb_verb kb_verb_list;     /* list/ */
extern const struct kb_verb kb_verb_baseline; /* baseline/ */
extern const struct kb_verb kb_verb_check;    /* check/ */
extern const struct kb_verb kb_verb_merge;    /* merge/ */
extern const struct kb_verb kb_verb_compare;  /* compare/ */

/* Print the exit-code table (shared by --help of every verb; help.c). */
void kb_print_exit_codes(FILE *out);

#endif
