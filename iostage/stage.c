/* stage.c - the stage's stop flag: set by `kbench io`'s signal handler
 * (drivers/io/io_verb.c), read by the loops of gen, run and checkpoint, so that
 * none of them depends on the command that calls it; and the exit code of
 * a stage result, for every sub-verb. */
#include "iostage/stage.h"

#include "drivers/common/exit_codes.h"

volatile sig_atomic_t kb_io_interrupted;

int kb_io_exit_code(int rc)
{
    if (kb_io_interrupted)
        return 128 + kb_io_interrupted;
    switch (rc) {
    case 0: return KB_EXIT_OK;
    case KB_IO_CORRUPT: return KB_EXIT_VALIDATION;
    case KB_IO_USAGE: return KB_EXIT_USAGE;
    default: return KB_EXIT_RUNTIME;
    }
}
