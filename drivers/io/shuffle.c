/* shuffle.c - file- and sample-level shuffling, seeded per epoch (and per
 * file), so a run is reproducible and every epoch's order differs. */
#include "io_internal.h"

uint64_t kb_io_epoch_seed(uint64_t seed, int64_t epoch, int64_t file)
{
    return kb_io_mix(kb_io_mix(seed ^ 0x6b62656e6368ULL) + (uint64_t)epoch) ^
           kb_io_mix((uint64_t)file + 0x9e37ULL);
}

/* Uniform in [0, n) without modulo bias worth caring about (n < 2^40). */
static size_t below(uint64_t *s, size_t n)
{
    return (size_t)((kb_io_rand(s) >> 11) % n);
}

void kb_io_shuffle_i64(int64_t *a, size_t n, uint64_t seed)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = below(&seed, i);
        int64_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

void kb_io_shuffle_samples(kb_io_sample *a, size_t n, uint64_t seed)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = below(&seed, i);
        kb_io_sample t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
