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
extern const struct kb_verb kb_verb_report;   /* report/ */
extern const struct kb_verb kb_verb_baseline; /* baseline/ */
extern const struct kb_verb kb_verb_check;    /* check/ */
extern const struct kb_verb kb_verb_merge;    /* merge/ */
extern const struct kb_verb kb_verb_compare;  /* compare/ */

#endif
