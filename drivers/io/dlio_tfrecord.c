/* dlio_tfrecord.c - STUB until the dlio-formats helper writes it. */
#include "io_internal.h"

const kb_io_format kb_io_format_dlio_tfrecord = {
    .name = "dlio-tfrecord",
    .ext = "tfrecord",
    .missing = "not implemented yet",
    .positional_ids = true,
};
