/* io_merge.c - STUB until the merge helper writes it. */
#include "io_internal.h"
#include "drivers/commands.h"

int kb_io_merge_cmd(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "kbench io merge: not implemented yet\n");
    return KB_EXIT_USAGE;
}
