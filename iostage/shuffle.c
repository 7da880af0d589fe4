/* shuffle.c - file- and sample-level shuffling, seeded per epoch (and per
 * file), so a run is reproducible and every epoch's order differs. */
#include "iostage/shuffle.h"
#include "kernels/random.h"

uint64_t kb_io_epoch_seed(uint64_t seed, int64_t epoch, int64_t file)
{
    return kb_mix64(kb_mix64(seed ^ 0x6b62656e6368ULL) + (uint64_t)epoch) ^
           kb_mix64((uint64_t)file + 0x9e37ULL);
}

/* Uniform in [0, n) without modulo bias worth caring about (n < 2^40). */
static size_t below(uint64_t *s, size_t n)
{
    return (size_t)((kb_splitmix64(s) >> 11) % n);
}

/* Swap two elements of `size` bytes, byte by byte: the arrays shuffled
 * are file orders and one file's samples, small enough that this costs
 * nothing next to reading them. */
static void swap(unsigned char *x, unsigned char *y, size_t size)
{
    for (size_t k = 0; k < size; k++) {
        unsigned char t = x[k];
        x[k] = y[k];
        y[k] = t;
    }
}

void kb_io_shuffle(void *a, size_t n, size_t size, uint64_t seed)
{
    unsigned char *base = a;
    for (size_t i = n; i > 1; i--) {
        size_t j = below(&seed, i);
        swap(base + (i - 1) * size, base + j * size, size);
    }
}
