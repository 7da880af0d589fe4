/* commands.h - the kbench verbs and the exit codes they share (the codes
 * themselves: drivers/common/exit_codes.h). */
#ifndef KB_COMMANDS_H
#define KB_COMMANDS_H

#include "drivers/common/exit_codes.h"

/* Entry point of the kbench program (cli.c): dispatches on argv[1]. */
int kb_main(int argc, char **argv);

/* Verbs, each declared as data (drivers/common/options.h) in its folder,
 * listed once in drivers/verbs.def: kb_verb_run, kb_verb_list, ... */
struct kb_verb;
#define KB_VERB(name) extern const struct kb_verb kb_verb_##name;
#include "drivers/verbs.def"
#undef KB_VERB

#endif
