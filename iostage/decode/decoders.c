/* decoders.c - the table of sample decoders, found by name. */
#include "iostage/decode/decoder.h"

#include <string.h>

const kb_io_decoder *kb_io_decoder_find(const char *name)
{
    static const kb_io_decoder *const all[] = {
        &kb_io_decode_jpeg, &kb_io_decode_cosmo, &kb_io_decode_hdf5,
        &kb_io_decode_parse};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
