/* dlio_hdf5.c - STUB until the dlio-formats helper writes it. */
#include "io_internal.h"

const kb_io_format kb_io_format_dlio_hdf5 = {
    .name = "dlio-hdf5",
    .ext = "hdf5",
    .missing = "not implemented yet",
    .positional_ids = true,
};
