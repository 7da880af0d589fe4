/* gen_random.c - a sample body of random bytes, its size drawn around the
 * profile's mean and deviation (gen_jpeg.c aims at the same size). */
#include "iostage/formats/body.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t kb_io_random_size(const kb_io_profile *p, uint64_t seed, uint64_t id)
{
    uint64_t s = kb_mix64(seed ^ kb_mix64(id + 0x51ed));
    /* sum of four uniforms on [-0.5, 0.5): approximately normal, var 1/3 */
    double g = 0;
    for (int i = 0; i < 4; i++)
        g += (double)(kb_splitmix64(&s) >> 11) / 9007199254740992.0 - 0.5;
    double n = (double)p->sample_bytes + g * 1.7320508 * (double)p->sample_stddev;
    return n < 64 ? 64 : (size_t)n;
}

int kb_io_random_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                       uint8_t **body, size_t *len, char *err, size_t elen)
{
    size_t n = kb_io_random_size(p, seed, id);
    *body = malloc(n);
    if (!*body) {
        snprintf(err, elen, "out of memory for a %zu-byte sample", n);
        return KB_IO_ERROR;
    }
    kb_io_fill_random(*body, n, kb_mix64(seed) ^ id);
    *len = n;
    return 0;
}

