/* pipeline.h - `kbench io run`: the input pipeline (pipeline.c). */
#ifndef KB_IO_PIPELINE_H
#define KB_IO_PIPELINE_H

#include "iostage/profile.h"
#include "iostage/run_opts.h"

#include <stddef.h>

/* Returns 0, KB_IO_CORRUPT (verification failed), KB_IO_USAGE or
 * KB_IO_ERROR with a message. */
int kb_io_run(const kb_io_profile *p, const kb_io_run_opts *o, char *err,
              size_t len);

#endif
