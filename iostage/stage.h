/* stage.h - what every file of the I/O stage shares: its error codes,
 * message length, O_DIRECT alignment and the stop flag (stage.c). */
#ifndef KB_IO_STAGE_H
#define KB_IO_STAGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_IO_ERRLEN 512
#define KB_IO_ALIGN 4096            /* O_DIRECT buffer/offset alignment */

/* Return codes of the stage's functions beyond 0 / -1. */
enum {
    KB_IO_ERROR = -1,      /* I/O or library failure: exit code 3 */
    KB_IO_CORRUPT = -2,    /* the data is wrong: exit code 1, or skipped */
    KB_IO_USAGE = -3,      /* bad option or input: exit code 2 */
};

/* Set by the verb's SIGINT/SIGTERM handler (drivers/io/io_verb.c); long loops stop
 * between files when it is non-zero.  Defined in stage.c. */
extern volatile sig_atomic_t kb_io_interrupted;

/* The exit code of a stage result (drivers/common/exit_codes.h): 128 + N
 * after signal N, else 0, 1 (KB_IO_CORRUPT), 2 (KB_IO_USAGE) or 3.  Can't
 * fail. */
int kb_io_exit_code(int rc);

#endif
