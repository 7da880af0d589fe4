/* formats.c - the table of container formats, found by name. */
#include "iostage/formats/format.h"

#include <string.h>

const kb_io_format *kb_io_format_find(const char *name)
{
    static const kb_io_format *const all[] = {
        &kb_io_format_tfrecord, &kb_io_format_npz, &kb_io_format_hdf5,
        &kb_io_format_dlio_npz, &kb_io_format_dlio_tfrecord,
        &kb_io_format_dlio_hdf5};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
