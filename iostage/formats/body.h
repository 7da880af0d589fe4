/* body.h - the bodies of generated samples (body.c, gen_random.c,
 * gen_jpeg.c, gen_cosmo.c). */
#ifndef KB_IO_FORMATS_BODY_H
#define KB_IO_FORMATS_BODY_H

#include "iostage/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Make the body of sample id; *body is malloc'd.  Returns 0, KB_IO_ERROR
 * (allocation, library) with a message. */
int kb_io_body_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen);
int kb_io_jpeg_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen);
int kb_io_cosmo_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                     uint8_t **body, size_t *len, char *err, size_t elen);
/* Random bytes of kb_io_random_size(p, seed, id) (gen_random.c). */
int kb_io_random_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                      uint8_t **body, size_t *len, char *err, size_t elen);
/* Size in bytes of sample id's body for the "random" content. */
size_t kb_io_random_size(const kb_io_profile *p, uint64_t seed, uint64_t id);

#endif
