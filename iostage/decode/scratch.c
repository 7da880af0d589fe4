/* scratch.c - a decoder's scratch buffer, grown on demand. */
#include "iostage/decode/decoder.h"
#include "iostage/stage.h"

#include <stdlib.h>

int kb_io_scratch_reserve(kb_io_scratch *s, size_t n)
{
    if (s->n >= n)
        return 0;
    void *p = realloc(s->p, n);
    if (!p)
        return KB_IO_ERROR;
    s->p = p;
    s->n = n;
    return 0;
}
