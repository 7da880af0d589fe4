/* stage.c - the stage's stop flag: set by `kbench io`'s signal handler
 * (drivers/io/io_verb.c), read by the loops of gen, run and checkpoint, so that
 * none of them depends on the command that calls it. */
#include "iostage/stage.h"

volatile sig_atomic_t kb_io_interrupted;
