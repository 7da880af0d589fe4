/* profile.c - what follows from a profile's numbers, below the file
 * that reads profiles (profiles.c), so decoders and generators need not
 * reach the format and decoder tables it checks names against. */
#include "iostage/profile.h"

int64_t kb_io_dims_product(const kb_io_profile *p)
{
    int64_t n = 1;
    for (int i = 0; i < p->ndims; i++)
        n *= p->dims[i];
    return n;
}
