/* merge.h - `kbench io merge` (io_merge.c). */
#ifndef KB_IO_MERGE_MERGE_H
#define KB_IO_MERGE_MERGE_H

#include "drivers/provenance.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* `kbench io merge FILE...`: argv[0] == "merge"; prov goes into the
 * io_merge records (NULL: see iostage/record.h).  Returns an exit code
 * (drivers/commands.h). */
int kb_io_merge_cmd(int argc, char **argv, const kb_provenance *prov);

#endif
