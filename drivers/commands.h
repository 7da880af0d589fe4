/* commands.h - the kbench verbs and the exit codes they share (the codes
 * themselves: drivers/common/exit_codes.h). */
#ifndef KB_COMMANDS_H
#define KB_COMMANDS_H

#include "drivers/common/exit_codes.h"


/* Entry point of the kbench program (cli.c): dispatches on argv[1]. */
int kb_main(int argc, char **argv);

/* Verbs, each declared as data (drivers/common/options.h) in its folder. */
struct kb_verb;
extern const struct kb_verb kb_verb_run;      /* run/ */
extern const struct kb_verb kb_verb_list;     /* list/ */
extern const struct kb_verb kb_verb_peaks;    /* peaks/ */

/* Verbs still parsing their own argv; argv[0] is the verb name; each
 * returns an exit code above. */
int kb_cmd_baseline(int argc, char **argv);   /* acceptance/cmd_baseline.c */
int kb_cmd_check(int argc, char **argv);      /* acceptance/cmd_check.c */
int kb_cmd_merge(int argc, char **argv);      /* merge/cmd_merge.c */
int kb_cmd_compare(int argc, char **argv);    /* compare/cmd_compare.c */

#endif
