/* checkpoint.h - `kbench io checkpoint` (checkpoint.c): one checkpoint
 * written and read back, or DLIO's schedule run by ckpt_loop.c. */
#ifndef KB_IO_CHECKPOINT_CHECKPOINT_H
#define KB_IO_CHECKPOINT_CHECKPOINT_H

#include "iostage/checkpoint/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without a schedule in o->plan, write one checkpoint of o->bytes and read
 * it back, compared; with one, run the emulated training loop.  The
 * records go to o->json and a summary to stdout.  0, KB_IO_CORRUPT (the
 * read-back differs), KB_IO_USAGE or KB_IO_ERROR with a message. */
int kb_io_checkpoint(const kb_io_ckpt_opts *o, char *err, size_t len);

#endif
