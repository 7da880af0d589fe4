/* merge.h - `kbench io merge` (io_merge.c). */
#ifndef KB_IO_MERGE_MERGE_H
#define KB_IO_MERGE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* `kbench io merge FILE...`: argv[0] == "merge".  Returns an exit code
 * (drivers/commands.h). */
int kb_io_merge_cmd(int argc, char **argv);

#endif
