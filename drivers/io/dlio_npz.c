/* dlio_npz.c - STUB until the dlio-formats helper writes it. */
#include "io_internal.h"

const kb_io_format kb_io_format_dlio_npz = {
    .name = "dlio-npz",
    .ext = "npz",
    .missing = "not implemented yet",
    .positional_ids = true,
};
