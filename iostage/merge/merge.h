/* merge.h - `kbench io merge` (io_merge.c). */
#ifndef KB_IO_MERGE_MERGE_H
#define KB_IO_MERGE_MERGE_H

#include "drivers/provenance.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* `kbench io merge`: the n rank files, the io_merge records to json
 * (NULL: none); prov goes into them (NULL: see iostage/record.h).
 * Returns an exit code (kb_io_exit_code), after a message. */
int kb_io_merge_files(char **files, int n, const char *json,
                      const kb_provenance *prov);

#endif
