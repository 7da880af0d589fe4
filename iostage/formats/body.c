/* body.c - the content of one sample, chosen by the profile's `body`:
 * JPEG images, cosmology volumes, or random bytes of the profile's size. */
#include "iostage/formats/body.h"
#include "iostage/profile.h"
#include "iostage/stage.h"

#include <stdio.h>
#include <string.h>

int kb_io_body_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen)
{
    if (strcmp(p->body, "jpeg") == 0)
        return kb_io_jpeg_make(p, seed, id, body, len, err, elen);
    if (strcmp(p->body, "cosmo") == 0)
        return kb_io_cosmo_make(p, seed, id, body, len, err, elen);
    if (strcmp(p->body, "random") == 0)
        return kb_io_random_make(p, seed, id, body, len, err, elen);
    snprintf(err, elen, "profile %s: body '%s' cannot go in a %s file "
             "(expected jpeg, cosmo or random)", p->name, p->body, p->format);
    return KB_IO_USAGE;
}
