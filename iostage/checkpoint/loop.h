/* loop.h - `kbench io checkpoint` with a schedule: the emulated
 * training loop (ckpt_loop.c). */
#ifndef KB_IO_CHECKPOINT_LOOP_H
#define KB_IO_CHECKPOINT_LOOP_H

#include "iostage/checkpoint/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Epochs x steps of compute_sleep, checkpoints where o->plan puts them,
 * every file read back and compared, then removed; the records and the
 * loop's figures to o->json and stdout.  0 or a stage error. */
int kb_io_ckpt_loop(const kb_io_ckpt_opts *o, char *err, size_t len);

#endif
